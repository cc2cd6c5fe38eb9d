//! Generates the protobuf types from `proto/*.proto` with prost-build, parsing the files with the
//! pure-Rust `protox` compiler so that no system `protoc` is needed. The descriptor set is kept
//! too: the field-number test reads it.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["proto/envelope.proto", "proto/websocket.proto"];
    for f in files {
        println!("cargo:rerun-if-changed={f}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("descriptors.bin"),
        prost::Message::encode_to_vec(&descriptors),
    )?;
    // A multi-recipient send's fields stay slices of the request body (no copy of the parts).
    prost_build::Config::new()
        .bytes([".alibi.relay.MultiRecipientParts"])
        .compile_fds(descriptors)?;
    Ok(())
}
