//! Measures one seed's table (SHADOWFAX, seed 001) at the quick scale and prints it as Markdown.
//!
//! `cargo run --release -p alibi-bench --example one_seed`

use alibi_bench::{run, Event, Options, Scale, Seed};

fn main() -> Result<(), alibi_bench::Error> {
    let options = Options {
        scale: Scale::Quick,
        only: vec![Seed::Akem],
    };
    let report = run(&options, &mut |e| {
        if let Event::Step(what) = e {
            eprintln!("measuring {what}");
        }
    })?;
    println!("{}", report.markdown(1));
    Ok(())
}
