//! bench (soon)
