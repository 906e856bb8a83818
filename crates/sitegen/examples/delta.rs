//! Writes an RFC 9842 delta of NEW against OLD (the dictionary) as sitegen builds it:
//!
//!     cargo run -p edgesite-sitegen --example delta -- dcz|dcb NEW OLD OUT
//!
//! tests/browser/dictionary_transport.py serves its output to Chromium.

use edgesite_sitegen::delta::{dcb, dcz};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [coding, new, old, out] = args.as_slice() else {
        return Err("usage: delta dcz|dcb NEW OLD OUT".into());
    };
    let (new, old) = (std::fs::read(new)?, std::fs::read(old)?);
    let delta = match coding.as_str() {
        "dcz" => dcz(&new, &old, 19),
        "dcb" => dcb(&new, &old, 11),
        other => return Err(format!("unknown coding {other}").into()),
    }
    .map_err(|e| format!("no delta: {e:?}"))?;
    std::fs::write(out, delta)?;
    Ok(())
}
