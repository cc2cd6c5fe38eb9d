//! Each seed paper's headline table, measured here with its peers in the same run: one module
//! per seed, named after what it measures.
//!
//! * [`ring`]: seed 000, ring signatures (FalconRS, MAYO-RS; Table 3).
//! * [`akem`]: seed 001, SHADOWFAX and its parts against the hpke crate's DHKEM (Table 1).
//! * [`mpc`]: seed 002, threshold signatures over pairwise and group channels.
//! * [`dgsp`]: seed 003, DGSP against dgsp 0.1.2.
//! * [`tachyon`]: seed 004, TACHYON against PQClean's ML-DSA, Falcon and SPHINCS+ (Table 2).

pub(crate) mod akem;
pub(crate) mod dgsp;
pub(crate) mod mpc;
pub(crate) mod ring;
pub(crate) mod tachyon;

use crate::table::Table;
use crate::{Ctx, Error};

/// A seed's measurement: first measured into plain data (times, sizes, counts), then rendered
/// into its [`Table`] by a function that times nothing; the table makes the report's Markdown,
/// the CSV and the plot. Rendering alone is what the seeds' unit tests check.
pub(crate) trait Measurement: Sized {
    /// Runs the seed's measurements (the slow part), reporting progress through `ctx`.
    fn measure(ctx: &mut Ctx) -> Result<Self, Error>;

    /// The table of these figures: columns, rows, the notes beside the paper's, the plot.
    fn render(&self) -> Table;
}
