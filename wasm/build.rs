//! Generates the TypeScript union of error codes from core's `ErrorCode::ALL`.

use std::fmt::Write as _;

fn main() {
    let mut ts =
        String::from("/** Every stable error code. Codes are append-only. */\nexport type PageAiErrorCode =\n");
    for code in pageai_core::error::ErrorCode::ALL {
        let _ = writeln!(ts, "  | \"{}\"", code.as_str());
    }
    ts.push_str(";\n");
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    if let Err(e) = std::fs::write(std::path::Path::new(&out).join("error_codes.d.ts"), ts) {
        println!("cargo::error=could not write error_codes.d.ts: {e}");
    }
    println!("cargo::rerun-if-changed=../core/src/error.rs");
}
