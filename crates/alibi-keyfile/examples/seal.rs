//! Seals a string under a passphrase and opens it again, printing the sizes.
//!
//! The passphrase comes from `ALIBI_PASSPHRASE` if set, else a fixed demo passphrase:
//!
//! ```text
//! ALIBI_PASSPHRASE='my passphrase' cargo run --release -p alibi-keyfile --example seal
//! ```

use alibi_keyfile::{open, passphrase, seal, Error, Params, HEADER_LEN};

fn main() {
    // Print errors with their one-line Display message, as the CLI does.
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Error> {
    let pass = match passphrase(None) {
        Ok(p) => p,
        Err(Error::NoPassphrase) => {
            println!("ALIBI_PASSPHRASE unset; using the demo passphrase");
            zeroize::Zeroizing::new(b"demo passphrase".to_vec())
        }
        Err(e) => return Err(e),
    };
    let secret = "the secret key of a demo identity";
    let params = Params::default();
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);

    let sealed = seal("alibi demo", secret.as_bytes(), &pass, params, &mut rng)?;
    println!(
        "sealed {} bytes into {} ({HEADER_LEN}-byte header, 16-byte tag), Argon2id {params}",
        secret.len(),
        sealed.len()
    );
    let opened = open("alibi demo", &sealed, &pass)?;
    println!(
        "opened {} bytes: {:?}",
        opened.len(),
        String::from_utf8_lossy(&opened)
    );
    assert_eq!(&opened[..], secret.as_bytes());
    Ok(())
}
