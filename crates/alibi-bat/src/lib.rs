//! # alibi-bat
//!
//! BAT-257 (placeholder while the crate is written).

#![forbid(unsafe_code)]
#![deny(missing_docs)]
