//! Choosing the compute device by name (`--device cpu|wgpu`).
//!
//! `cpu` is burn's `flex` backend, always built. `wgpu` (Vulkan, Metal,
//! DX12) needs the crate's `wgpu` feature; it always asks for a discrete GPU
//! explicitly, because on a machine without one wgpu's default choice may be
//! a software adapter that hangs. A `cuda` backend is not offered: burn's
//! CUDA build downloads an LLVM bundle at build time, which fails offline.

use crate::error::NetError;
use crate::layers::host;
use burn::tensor::{Device, Tensor, TensorData};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long the first computation on a GPU may take before the device
/// counts as unusable (it starts the driver and compiles one small kernel).
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// What to install when no GPU answers.
const GPU_HELP: &str = "wgpu needs a GPU with a working Vulkan (Linux, Windows), Metal \
    (macOS) or DX12 (Windows) driver: on Linux install the Vulkan loader (Debian/Ubuntu: \
    libvulkan1) and your GPU's driver with its Vulkan ICD (NVIDIA: the proprietary driver; \
    AMD/Intel: mesa-vulkan-drivers), check with `vulkaninfo --summary`, or use --device cpu";

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
///
/// A GPU is tried at once with a tiny computation, so a missing or unusable
/// one is a clear error here, before any work starts, not a panic in a
/// backend thread later.
pub fn device_from_name(name: &str) -> Result<Device, NetError> {
    match name.trim() {
        "cpu" | "flex" => Ok(Device::flex()),
        other if other == "wgpu" || other.starts_with("wgpu:") => {
            let device = wgpu_device(other)?;
            probe(other, &device, PROBE_TIMEOUT)?;
            Ok(device)
        }
        other => Err(NetError::Device(format!(
            "unknown device {other:?}; this build knows {}",
            available_devices().join(", ")
        ))),
    }
}

/// Runs a tiny computation on `device` and reads it back.
fn probe(name: &str, device: &Device, timeout: Duration) -> Result<(), NetError> {
    let device = device.clone();
    run_probe(name, timeout, move || {
        let x = Tensor::<1>::from_data(TensorData::new(vec![1.0f32, 2.0], [2]), &device);
        let sum = host(x.clone() + x).map_err(|e| e.to_string())?;
        if sum == [2.0, 4.0] {
            Ok(())
        } else {
            Err(format!("1 + 1 gave {sum:?}"))
        }
    })
}

/// Runs `op` on its own thread within `timeout`; a panic (wgpu panics when
/// it finds no adapter), an error or no answer becomes a device error
/// naming `name`, what went wrong and what to install. The panic message is
/// kept for the error instead of printed with a backtrace.
fn run_probe(
    name: &str,
    timeout: Duration,
    op: impl FnOnce() -> Result<(), String> + Send + 'static,
) -> Result<(), NetError> {
    let panics = Arc::new(Mutex::new(Vec::<String>::new()));
    let previous_hook = std::panic::take_hook();
    let seen = Arc::clone(&panics);
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into());
        if let Ok(mut list) = seen.lock() {
            list.push(text);
        }
    }));
    let (tx, rx) = channel();
    let spawned = std::thread::Builder::new()
        .name("device-probe".into())
        .spawn(move || {
            let _ = tx.send(op());
        });
    let outcome = match spawned {
        Ok(_) => rx.recv_timeout(timeout),
        Err(e) => Ok(Err(format!("cannot start a thread: {e}"))),
    };
    std::panic::set_hook(previous_hook);
    let panicked = panics.lock().map(|l| l.join("; ")).unwrap_or_default();
    let why = match outcome {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(e)) => e,
        Err(RecvTimeoutError::Disconnected) => format!("it failed: {panicked}"),
        Err(RecvTimeoutError::Timeout) => format!(
            "a first tiny computation did not finish within {timeout:?}{}",
            if panicked.is_empty() {
                String::new()
            } else {
                format!(" ({panicked})")
            }
        ),
    };
    Err(NetError::Device(format!(
        "{name} cannot be used: {why}. {GPU_HELP}"
    )))
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
    fn a_device_that_panics_or_hangs_is_a_clear_error() {
        let err = run_probe("wgpu", Duration::from_secs(10), || {
            panic!("Unable to acquire wgpu device: AdapterUnavailable")
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("device: wgpu cannot be used: it failed: Unable to acquire wgpu device: AdapterUnavailable."),
            "{err}"
        );
        assert!(
            err.contains("libvulkan1") && err.contains("--device cpu"),
            "{err}"
        );
        let err = run_probe("wgpu:1", Duration::from_millis(50), || {
            std::thread::sleep(Duration::from_secs(2));
            Ok(())
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("wgpu:1 cannot be used") && err.contains("within 50ms"),
            "{err}"
        );
        // The CPU passes the same probe.
        probe("cpu", &Device::flex(), Duration::from_secs(60)).unwrap();
    }

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
