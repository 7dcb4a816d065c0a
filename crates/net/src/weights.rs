//! Named float32 tensors on the host: where a network's weights come from
//! (seeded random init or a file) and how they are written (safetensors).
//!
//! Names and layouts are the stable ones documented in `docs/MODEL.md`:
//! convolution weights `[out, in, kh, kw]`, fully connected weights
//! `[out, in]` (PyTorch's convention), batch norm as four `[channels]` vectors.

use crate::error::NetError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use safetensors::{Dtype, SafeTensors, tensor::TensorView};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// One tensor: stable name, shape, row-major float32 values.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedTensor {
    /// Stable name, e.g. `blocks.0.conv1.weight`.
    pub name: String,
    /// Shape, outermost dimension first.
    pub shape: Vec<usize>,
    /// Values, row-major.
    pub data: Vec<f32>,
}

/// How a freshly initialised parameter is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Init {
    /// He (Kaiming) uniform for a ReLU layer with this fan-in.
    He {
        /// Inputs feeding one output.
        fan_in: usize,
    },
    /// Uniform in `[-1/sqrt(fan_in), 1/sqrt(fan_in)]` (output layers).
    Small {
        /// Inputs feeding one output.
        fan_in: usize,
    },
    /// All zeros.
    Zeros,
    /// All ones.
    Ones,
}

/// Supplies the values of each parameter while a network is built.
pub trait WeightSource {
    /// The values of parameter `name` of `shape` (exported layout).
    fn take(&mut self, name: &str, shape: &[usize], init: Init) -> Result<Vec<f32>, NetError>;
}

/// Seeded random initialisation (ChaCha8): the same seed gives the same
/// weights on every backend.
pub struct RandomInit {
    rng: ChaCha8Rng,
}

impl RandomInit {
    /// A source seeded with `seed`.
    pub fn new(seed: u64) -> RandomInit {
        RandomInit {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl WeightSource for RandomInit {
    fn take(&mut self, _name: &str, shape: &[usize], init: Init) -> Result<Vec<f32>, NetError> {
        let len: usize = shape.iter().product();
        let uniform = |rng: &mut ChaCha8Rng, bound: f32| -> Vec<f32> {
            (0..len).map(|_| rng.random_range(-bound..=bound)).collect()
        };
        Ok(match init {
            Init::He { fan_in } => uniform(&mut self.rng, (6.0 / fan_in.max(1) as f32).sqrt()),
            Init::Small { fan_in } => uniform(&mut self.rng, 1.0 / (fan_in.max(1) as f32).sqrt()),
            Init::Zeros => vec![0.0; len],
            Init::Ones => vec![1.0; len],
        })
    }
}

/// Named tensors taken one by one, each checked against the shape the
/// architecture needs; [`TensorMap::finish`] fails on any left over. The one
/// place that says what is wrong with a set of weights.
pub(crate) struct TensorMap {
    tensors: HashMap<String, NamedTensor>,
}

impl TensorMap {
    pub(crate) fn new(tensors: Vec<NamedTensor>) -> TensorMap {
        TensorMap {
            tensors: tensors.into_iter().map(|t| (t.name.clone(), t)).collect(),
        }
    }

    /// Removes tensor `name`, which must have `shape`.
    pub(crate) fn take(&mut self, name: &str, shape: &[usize]) -> Result<NamedTensor, NetError> {
        let tensor = self
            .tensors
            .remove(name)
            .ok_or_else(|| NetError::Weights(format!("tensor {name} is missing")))?;
        if tensor.shape != shape {
            return Err(NetError::Weights(format!(
                "tensor {name} has shape {:?}, the architecture needs {shape:?}",
                tensor.shape
            )));
        }
        Ok(tensor)
    }

    /// Fails if some tensor was not taken.
    pub(crate) fn finish(self) -> Result<(), NetError> {
        if self.tensors.is_empty() {
            return Ok(());
        }
        let mut names: Vec<&str> = self.tensors.keys().map(String::as_str).collect();
        names.sort_unstable();
        Err(NetError::Weights(format!(
            "tensors not used by this architecture: {}",
            names.join(", ")
        )))
    }
}

/// Weights read from a file, taken by name; checks shapes and, with
/// [`LoadedWeights::finish`], that none is left over.
pub struct LoadedWeights {
    tensors: TensorMap,
}

impl LoadedWeights {
    /// Wraps a list of tensors.
    pub fn new(tensors: Vec<NamedTensor>) -> LoadedWeights {
        LoadedWeights {
            tensors: TensorMap::new(tensors),
        }
    }

    /// Fails if some tensor was not used by the network.
    pub fn finish(self) -> Result<(), NetError> {
        self.tensors.finish()
    }
}

impl WeightSource for LoadedWeights {
    fn take(&mut self, name: &str, shape: &[usize], _init: Init) -> Result<Vec<f32>, NetError> {
        Ok(self.tensors.take(name, shape)?.data)
    }
}

/// Fails if `tensor` holds a NaN or an infinity (corrupt file or a
/// diverged training run), naming the tensor, the index and the value.
pub fn check_finite(tensor: &NamedTensor) -> Result<(), NetError> {
    match tensor.data.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => Err(NetError::NonFinite {
            tensor: tensor.name.clone(),
            index,
            value: tensor.data[index],
        }),
    }
}

/// Serialises tensors as a safetensors buffer (float32, little endian).
pub fn to_safetensors(
    tensors: &[NamedTensor],
    metadata: Option<BTreeMap<String, String>>,
) -> Result<Vec<u8>, NetError> {
    let bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|t| t.data.iter().flat_map(|v| v.to_le_bytes()).collect())
        .collect();
    let mut views = Vec::with_capacity(tensors.len());
    for (tensor, data) in tensors.iter().zip(&bytes) {
        let view = TensorView::new(Dtype::F32, tensor.shape.clone(), data)
            .map_err(|e| NetError::Weights(format!("tensor {}: {e}", tensor.name)))?;
        views.push((tensor.name.clone(), view));
    }
    let metadata = metadata.map(|m| m.into_iter().collect::<HashMap<_, _>>());
    safetensors::serialize(views, metadata)
        .map_err(|e| NetError::Weights(format!("cannot serialise weights: {e}")))
}

/// Reads every tensor of a safetensors buffer (float32 only); `path` names
/// the file in errors.
pub fn from_safetensors(bytes: &[u8], path: &Path) -> Result<Vec<NamedTensor>, NetError> {
    let file = SafeTensors::deserialize(bytes)
        .map_err(|e| NetError::format(path, format!("not a valid safetensors buffer: {e}")))?;
    let mut tensors = Vec::new();
    for (name, view) in file.tensors() {
        if view.dtype() != Dtype::F32 {
            return Err(NetError::format(
                path,
                format!("tensor {name} is {:?}, expected F32", view.dtype()),
            ));
        }
        let data = view
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        tensors.push(NamedTensor {
            name,
            shape: view.shape().to_vec(),
            data,
        });
    }
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(tensors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safetensors_round_trip() {
        let tensors = vec![
            NamedTensor {
                name: "a".into(),
                shape: vec![2, 3],
                data: vec![1.0, -2.0, 3.5, 0.0, 1e-7, 6.0],
            },
            NamedTensor {
                name: "b".into(),
                shape: vec![1],
                data: vec![42.0],
            },
        ];
        let bytes = to_safetensors(&tensors, None).unwrap();
        let back = from_safetensors(&bytes, Path::new("mem")).unwrap();
        assert_eq!(back, tensors);
        let err = from_safetensors(&bytes[..bytes.len() - 3], Path::new("cut.safetensors"));
        assert!(err.unwrap_err().to_string().contains("cut.safetensors"));
    }

    #[test]
    fn loaded_weights_check_shapes_and_leftovers() {
        let mut weights = LoadedWeights::new(vec![
            NamedTensor {
                name: "x".into(),
                shape: vec![2],
                data: vec![1.0, 2.0],
            },
            NamedTensor {
                name: "y".into(),
                shape: vec![1],
                data: vec![0.0],
            },
        ]);
        let err = weights.take("x", &[3], Init::Zeros).unwrap_err();
        assert!(err.to_string().contains("shape"));
        assert!(weights.take("z", &[1], Init::Zeros).is_err());
        weights.take("y", &[1], Init::Zeros).unwrap();
        let err = LoadedWeights::new(vec![]).finish();
        assert!(err.is_ok());
        let mut leftover = LoadedWeights::new(vec![NamedTensor {
            name: "extra".into(),
            shape: vec![1],
            data: vec![0.0],
        }]);
        assert!(leftover.take("other", &[1], Init::Zeros).is_err());
        assert!(leftover.finish().unwrap_err().to_string().contains("extra"));
    }
}
