//! Choosing the compute device by name (`--device cpu|wgpu`).
//!
//! `cpu` is burn's `flex` backend, always built. `wgpu` (Vulkan, Metal,
//! DX12) needs the crate's `wgpu` feature; it always asks for a discrete GPU
//! explicitly, because on a machine without one wgpu's default choice may be
//! a software adapter that hangs. A `cuda` backend is not offered: burn's
//! CUDA build downloads an LLVM bundle at build time, which fails offline.

use crate::error::NetError;
use burn::tensor::Device;

/// The device names this build accepts.
pub fn available_devices() -> &'static [&'static str] {
    if cfg!(feature = "wgpu") {
        &["cpu", "wgpu", "wgpu:N", "wgpu:default"]
    } else {
        &["cpu"]
    }
}

/// The device called `name`: `cpu` (alias `flex`), or with the `wgpu`
/// feature `wgpu` (the first discrete GPU), `wgpu:N` (discrete GPU N) and
/// `wgpu:default` (wgpu's own pick, which may be a software adapter).
pub fn device_from_name(name: &str) -> Result<Device, NetError> {
    match name.trim() {
        "cpu" | "flex" => Ok(Device::flex()),
        other if other == "wgpu" || other.starts_with("wgpu:") => wgpu_device(other),
        other => Err(NetError::Device(format!(
            "unknown device {other:?}; this build knows {}",
            available_devices().join(", ")
        ))),
    }
}

#[cfg(feature = "wgpu")]
fn wgpu_device(name: &str) -> Result<Device, NetError> {
    use burn::tensor::DeviceKind;
    let kind = match name.strip_prefix("wgpu:") {
        None => DeviceKind::DiscreteGpu(0),
        // wgpu's own choice: only where the GPU is known to be found.
        Some("default") => DeviceKind::DefaultDevice,
        Some(n) => DeviceKind::DiscreteGpu(
            n.parse::<usize>()
                .map_err(|_| NetError::Device(format!("bad GPU index in {name:?}")))?,
        ),
    };
    Ok(Device::wgpu(kind))
}

#[cfg(not(feature = "wgpu"))]
fn wgpu_device(name: &str) -> Result<Device, NetError> {
    Err(NetError::Device(format!(
        "{name:?} needs the `wgpu` cargo feature (build with --features wgpu)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(device_from_name("cpu").is_ok());
        let err = device_from_name("tpu").unwrap_err().to_string();
        assert!(err.contains("tpu") && err.contains("cpu"), "{err}");
        if !cfg!(feature = "wgpu") {
            assert!(
                device_from_name("wgpu")
                    .unwrap_err()
                    .to_string()
                    .contains("feature")
            );
        }
    }
}
