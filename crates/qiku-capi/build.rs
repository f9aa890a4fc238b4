//! Gives `libqiku.so` a SONAME on Linux, so that a program linked with `-lqiku` records the ABI it
//! was built against (`NEEDED libqiku.so.0.1`) rather than whatever `libqiku.so` is found at run
//! time, and several ABIs can be installed side by side.
//!
//! The name follows Cargo's compatibility rules (those of cargo-c too): a 0.y release may break
//! the ABI, so while the major version is 0 the SONAME carries the minor one
//! (`libqiku.so.0.1` for 0.1.z); from 1.0 on it is `libqiku.so.<major>`. The tests read the
//! same name from `QIKU_SONAME`.

fn main() {
    let (major, minor) = (env!("CARGO_PKG_VERSION_MAJOR"), env!("CARGO_PKG_VERSION_MINOR"));
    let soname = if major == "0" { format!("libqiku.so.0.{minor}") } else { format!("libqiku.so.{major}") };
    println!("cargo:rustc-env=QIKU_SONAME={soname}");
    // The target's OS, not the host's: a build script runs on the host.
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
