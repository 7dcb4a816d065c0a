//! # shashki-onnx
//!
//! ONNX files for the exports of Shashki Zero (`shashki export --format
//! onnx`, docs/MODEL.md): the protobuf messages ([`proto`], written with
//! prost, the protobuf crate of the tokio project, so the binary needs no
//! Python and no `protoc`), a [`GraphBuilder`] the networks describe their
//! forward pass with, and the checks a reader makes ([`OnnxFile`]: opset,
//! metadata, input and output shapes, initializers).
//!
//! Every file uses the default operator set `ai.onnx` at version
//! [`OPSET`] and nothing else.

pub mod proto;

use prost::Message;
use proto::{
    AttributeProto, Dimension, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TensorShapeProto, TensorTypeProto, TypeProto,
    ValueInfoProto, attribute_type,
};
use std::collections::BTreeMap;
use thiserror::Error;

/// The `ai.onnx` operator set version every export uses (supported by
/// ONNX Runtime since 1.14, by onnxruntime-web and by every converter).
pub const OPSET: i64 = 17;
/// The ONNX IR version matching [`OPSET`].
pub const IR_VERSION: i64 = 8;
/// The symbolic name of the batch dimension.
pub const BATCH: &str = "batch";

/// What is wrong with an ONNX file (the caller names the file).
#[derive(Debug, Error, PartialEq)]
pub enum OnnxError {
    /// Not a protobuf `ModelProto`.
    #[error("not an ONNX model: {0}")]
    Decode(String),
    /// The file needs an operator set this build does not write.
    #[error(
        "unknown opset: the file imports {found}; this build reads only ai.onnx version {OPSET}"
    )]
    Opset {
        /// The imports found, e.g. `ai.onnx 18`.
        found: String,
    },
    /// A metadata entry is missing or has another value.
    #[error("metadata {key:?}: {reason}")]
    Metadata {
        /// The key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// An input or output is missing, extra or of another type or shape.
    #[error("{what}: {reason}")]
    Interface {
        /// E.g. `input planes`.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// The weights do not fit the architecture the metadata names.
    #[error("initializers: {0}")]
    Initializers(String),
}

/// One dimension of a graph input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// The dynamic batch dimension ([`BATCH`]).
    Batch,
    /// A fixed size.
    Fixed(i64),
}

impl std::fmt::Display for Dim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Batch => write!(f, "{BATCH}"),
            Dim::Fixed(n) => write!(f, "{n}"),
        }
    }
}

/// A graph input or output: name and float32 shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSig {
    /// Name.
    pub name: String,
    /// Shape.
    pub dims: Vec<Dim>,
}

impl TensorSig {
    /// `name` of shape `dims`.
    pub fn new(name: &str, dims: &[Dim]) -> TensorSig {
        TensorSig {
            name: name.into(),
            dims: dims.to_vec(),
        }
    }

    fn shape_text(dims: &[Dim]) -> String {
        let parts: Vec<String> = dims.iter().map(Dim::to_string).collect();
        format!("[{}]", parts.join(", "))
    }
}

/// A node attribute.
pub enum Attr {
    /// An integer.
    Int(&'static str, i64),
    /// A list of integers.
    Ints(&'static str, Vec<i64>),
    /// A float.
    Float(&'static str, f32),
}

impl Attr {
    fn proto(self) -> AttributeProto {
        let mut out = AttributeProto::default();
        match self {
            Attr::Int(name, value) => {
                out.name = Some(name.into());
                out.r#type = Some(attribute_type::INT);
                out.i = Some(value);
            }
            Attr::Ints(name, values) => {
                out.name = Some(name.into());
                out.r#type = Some(attribute_type::INTS);
                out.ints = values;
            }
            Attr::Float(name, value) => {
                out.name = Some(name.into());
                out.r#type = Some(attribute_type::FLOAT);
                out.f = Some(value);
            }
        }
        out
    }
}

/// Builds a graph node by node; values are named by the builder.
#[derive(Default)]
pub struct GraphBuilder {
    graph: GraphProto,
    next: usize,
}

fn value_info(sig: &TensorSig) -> ValueInfoProto {
    let dim = sig
        .dims
        .iter()
        .map(|d| match d {
            Dim::Batch => Dimension {
                dim_value: None,
                dim_param: Some(BATCH.into()),
            },
            Dim::Fixed(n) => Dimension {
                dim_value: Some(*n),
                dim_param: None,
            },
        })
        .collect();
    ValueInfoProto {
        name: Some(sig.name.clone()),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: Some(proto::FLOAT),
                shape: Some(TensorShapeProto { dim }),
            }),
        }),
        doc_string: None,
    }
}

impl GraphBuilder {
    /// An empty graph.
    pub fn new() -> GraphBuilder {
        GraphBuilder::default()
    }

    /// Declares a float32 graph input; returns its name.
    pub fn input(&mut self, sig: &TensorSig) -> String {
        self.graph.input.push(value_info(sig));
        sig.name.clone()
    }

    /// A float32 constant (a weight) named `name`, row-major `data`.
    pub fn weight(&mut self, name: &str, dims: &[usize], data: &[f32]) -> String {
        assert_eq!(dims.iter().product::<usize>(), data.len(), "{name}");
        let raw = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.constant(name, dims, proto::FLOAT, raw)
    }

    /// An int64 constant (an index or a shape) named `name`.
    pub fn ints(&mut self, name: &str, dims: &[usize], data: &[i64]) -> String {
        assert_eq!(dims.iter().product::<usize>(), data.len(), "{name}");
        let raw = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.constant(name, dims, proto::INT64, raw)
    }

    /// Adds a constant; one already named `name` (a shared index or
    /// shape) is kept, and must be the same.
    fn constant(&mut self, name: &str, dims: &[usize], data_type: i32, raw: Vec<u8>) -> String {
        let dims_i64: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        if let Some(existing) = self
            .graph
            .initializer
            .iter()
            .find(|t| t.name.as_deref() == Some(name))
        {
            assert!(
                existing.dims == dims_i64 && existing.raw_data.as_ref() == Some(&raw),
                "constant {name} defined twice with other values"
            );
            return name.into();
        }
        self.graph.initializer.push(TensorProto {
            dims: dims_i64,
            data_type: Some(data_type),
            name: Some(name.into()),
            raw_data: Some(raw),
        });
        name.into()
    }

    /// Appends `op(inputs)` with `attrs`; returns its (single) output's name.
    pub fn node(&mut self, op: &str, inputs: &[&str], attrs: Vec<Attr>) -> String {
        self.next += 1;
        let output = format!("{}_{}", op.to_lowercase(), self.next);
        self.node_into(op, inputs, attrs, &output);
        output
    }

    /// Appends `op(inputs)` writing the value named `output`.
    pub fn node_into(&mut self, op: &str, inputs: &[&str], attrs: Vec<Attr>, output: &str) {
        self.graph.node.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![output.into()],
            name: Some(output.into()),
            op_type: Some(op.into()),
            domain: None,
            attribute: attrs.into_iter().map(Attr::proto).collect(),
        });
    }

    /// Declares `sig` a graph output, computed by the last node into
    /// `value`: renamed by an `Identity` when the names differ.
    pub fn output(&mut self, value: &str, sig: &TensorSig) {
        if value != sig.name {
            self.node_into("Identity", &[value], vec![], &sig.name);
        }
        self.graph.output.push(value_info(sig));
    }

    /// The model: the graph named `name` with `metadata`.
    pub fn finish(mut self, name: &str, doc: &str, metadata: &[(String, String)]) -> ModelProto {
        self.graph.name = Some(name.into());
        ModelProto {
            ir_version: Some(IR_VERSION),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(OPSET),
            }],
            producer_name: Some("shashki-zero".into()),
            producer_version: Some(env!("CARGO_PKG_VERSION").into()),
            domain: None,
            model_version: None,
            doc_string: Some(doc.into()),
            graph: Some(self.graph),
            metadata_props: metadata
                .iter()
                .map(|(k, v)| StringStringEntryProto {
                    key: Some(k.clone()),
                    value: Some(v.clone()),
                })
                .collect(),
        }
    }
}

/// The file's bytes of `model`.
pub fn encode(model: &ModelProto) -> Vec<u8> {
    model.encode_to_vec()
}

/// A decoded ONNX file and what a reader checks in it.
pub struct OnnxFile {
    /// The model.
    pub model: ModelProto,
}

impl OnnxFile {
    /// Decodes `bytes` (a `ModelProto`) and checks its operator sets: only
    /// `ai.onnx` at [`OPSET`].
    pub fn decode(bytes: &[u8]) -> Result<OnnxFile, OnnxError> {
        let model = ModelProto::decode(bytes).map_err(|e| OnnxError::Decode(e.to_string()))?;
        if model.graph.is_none() {
            return Err(OnnxError::Decode("the model has no graph".into()));
        }
        let imports: Vec<(String, i64)> = model
            .opset_import
            .iter()
            .map(|o| {
                let domain = o.domain.clone().unwrap_or_default();
                let domain = if domain.is_empty() {
                    "ai.onnx".into()
                } else {
                    domain
                };
                (domain, o.version.unwrap_or(0))
            })
            .collect();
        if imports != [("ai.onnx".to_string(), OPSET)] {
            let found: Vec<String> = imports.iter().map(|(d, v)| format!("{d} {v}")).collect();
            return Err(OnnxError::Opset {
                found: if found.is_empty() {
                    "no operator set".into()
                } else {
                    found.join(", ")
                },
            });
        }
        Ok(OnnxFile { model })
    }

    fn graph(&self) -> &GraphProto {
        self.model.graph.as_ref().expect("checked in decode")
    }

    /// The metadata entries.
    pub fn metadata(&self) -> BTreeMap<String, String> {
        self.model
            .metadata_props
            .iter()
            .map(|e| {
                (
                    e.key.clone().unwrap_or_default(),
                    e.value.clone().unwrap_or_default(),
                )
            })
            .collect()
    }

    /// The value of metadata `key`, or an error naming it.
    pub fn meta(&self, key: &str) -> Result<String, OnnxError> {
        self.metadata()
            .remove(key)
            .ok_or_else(|| OnnxError::Metadata {
                key: key.into(),
                reason: "missing".into(),
            })
    }

    /// Metadata `key` must be `expected`.
    pub fn expect_meta(&self, key: &str, expected: &str) -> Result<(), OnnxError> {
        let found = self.meta(key)?;
        if found != expected {
            return Err(OnnxError::Metadata {
                key: key.into(),
                reason: format!("is {found:?}, this build reads {expected:?}"),
            });
        }
        Ok(())
    }

    /// The graph's inputs and outputs must be exactly `inputs` and
    /// `outputs` (names, order, float32, shapes; the batch dimension
    /// symbolic).
    pub fn expect_interface(
        &self,
        inputs: &[TensorSig],
        outputs: &[TensorSig],
    ) -> Result<(), OnnxError> {
        let graph = self.graph();
        expect_values("input", &graph.input, inputs)?;
        expect_values("output", &graph.output, outputs)
    }

    /// The initializers must be exactly `expected` (name and shape, in
    /// any order).
    pub fn expect_initializers(&self, expected: &[(String, Vec<i64>)]) -> Result<(), OnnxError> {
        let mut found: BTreeMap<&str, &TensorProto> = BTreeMap::new();
        for t in &self.graph().initializer {
            found.insert(t.name.as_deref().unwrap_or(""), t);
        }
        for (name, dims) in expected {
            let tensor = found.remove(name.as_str()).ok_or_else(|| {
                OnnxError::Initializers(format!("{name} (shape {dims:?}) is missing"))
            })?;
            if &tensor.dims != dims {
                return Err(OnnxError::Initializers(format!(
                    "{name} has shape {:?}, the architecture asks for {dims:?}",
                    tensor.dims
                )));
            }
            let element = if tensor.data_type == Some(proto::INT64) {
                8
            } else {
                4
            };
            let len = dims.iter().product::<i64>() as usize * element;
            if tensor.raw_data.as_ref().map_or(0, Vec::len) != len {
                return Err(OnnxError::Initializers(format!(
                    "{name} does not hold {len} bytes of data"
                )));
            }
        }
        if let Some(extra) = found.keys().next() {
            return Err(OnnxError::Initializers(format!(
                "{extra} is not a tensor of the architecture"
            )));
        }
        Ok(())
    }
}

fn dims_of(value: &ValueInfoProto) -> Option<(i32, Vec<Dim>)> {
    let tensor = value.r#type.as_ref()?.tensor_type.as_ref()?;
    let dims = tensor
        .shape
        .as_ref()?
        .dim
        .iter()
        .map(|d| match (&d.dim_value, &d.dim_param) {
            (Some(n), _) => Dim::Fixed(*n),
            (None, _) => Dim::Batch,
        })
        .collect();
    Some((tensor.elem_type.unwrap_or(0), dims))
}

fn expect_values(
    kind: &str,
    found: &[ValueInfoProto],
    expected: &[TensorSig],
) -> Result<(), OnnxError> {
    let names = |v: &[ValueInfoProto]| -> Vec<String> {
        v.iter()
            .map(|x| x.name.clone().unwrap_or_default())
            .collect()
    };
    let wanted: Vec<String> = expected.iter().map(|s| s.name.clone()).collect();
    if names(found) != wanted {
        return Err(OnnxError::Interface {
            what: format!("{kind}s"),
            reason: format!("are {:?}, the contract is {wanted:?}", names(found)),
        });
    }
    for (value, sig) in found.iter().zip(expected) {
        let what = format!("{kind} {}", sig.name);
        let (elem, dims) = dims_of(value).ok_or_else(|| OnnxError::Interface {
            what: what.clone(),
            reason: "has no tensor type and shape".into(),
        })?;
        if elem != proto::FLOAT {
            return Err(OnnxError::Interface {
                what,
                reason: format!("has element type {elem}, the contract is float32 (1)"),
            });
        }
        if dims != sig.dims {
            return Err(OnnxError::Interface {
                what,
                reason: format!(
                    "has shape {}, the contract is {}",
                    TensorSig::shape_text(&dims),
                    TensorSig::shape_text(&sig.dims)
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Vec<u8> {
        let mut g = GraphBuilder::new();
        let x = g.input(&TensorSig::new("x", &[Dim::Batch, Dim::Fixed(2)]));
        let w = g.weight("w", &[2, 3], &[1.0; 6]);
        let y = g.node("MatMul", &[&x, &w], vec![]);
        g.output(&y, &TensorSig::new("y", &[Dim::Batch, Dim::Fixed(3)]));
        let meta = [("kind".to_string(), "tiny".to_string())];
        encode(&g.finish("tiny", "a test", &meta))
    }

    #[test]
    fn a_written_model_decodes_and_passes_its_own_contract() {
        let file = OnnxFile::decode(&tiny()).unwrap();
        file.expect_meta("kind", "tiny").unwrap();
        file.expect_interface(
            &[TensorSig::new("x", &[Dim::Batch, Dim::Fixed(2)])],
            &[TensorSig::new("y", &[Dim::Batch, Dim::Fixed(3)])],
        )
        .unwrap();
        file.expect_initializers(&[("w".into(), vec![2, 3])])
            .unwrap();
        let graph = file.model.graph.as_ref().unwrap();
        let ops: Vec<&str> = graph
            .node
            .iter()
            .map(|n| n.op_type.as_deref().unwrap())
            .collect();
        assert_eq!(ops, ["MatMul", "Identity"]);
    }

    #[test]
    fn a_shared_constant_is_written_once() {
        let mut g = GraphBuilder::new();
        g.ints("shape", &[2], &[-1, 4]);
        g.ints("shape", &[2], &[-1, 4]);
        let model = g.finish("shared", "", &[]);
        assert_eq!(model.graph.unwrap().initializer.len(), 1);
    }

    #[test]
    fn contract_breaches_are_named() {
        let file = OnnxFile::decode(&tiny()).unwrap();
        let err = file.expect_meta("kind", "other").unwrap_err().to_string();
        assert_eq!(
            err,
            r#"metadata "kind": is "tiny", this build reads "other""#
        );
        let err = file.expect_meta("step", "1").unwrap_err().to_string();
        assert_eq!(err, r#"metadata "step": missing"#);
        let err = file
            .expect_interface(
                &[TensorSig::new("x", &[Dim::Batch, Dim::Fixed(4)])],
                &[TensorSig::new("y", &[Dim::Batch, Dim::Fixed(3)])],
            )
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "input x: has shape [batch, 2], the contract is [batch, 4]"
        );
        let err = file
            .expect_initializers(&[("w".into(), vec![3, 2])])
            .unwrap_err();
        assert!(err.to_string().contains("w has shape [2, 3]"), "{err}");
        let err = file.expect_initializers(&[]).unwrap_err();
        assert!(err.to_string().contains("w is not a tensor"), "{err}");
    }

    #[test]
    fn another_opset_or_garbage_is_refused() {
        let mut model = OnnxFile::decode(&tiny()).unwrap().model;
        model.opset_import[0].version = Some(OPSET + 1);
        let err = OnnxFile::decode(&encode(&model)).err().unwrap();
        assert_eq!(
            err.to_string(),
            format!(
                "unknown opset: the file imports ai.onnx {}; this build reads only ai.onnx version {OPSET}",
                OPSET + 1
            )
        );
        assert!(matches!(
            OnnxFile::decode(b"\xff\xff\xff not protobuf"),
            Err(OnnxError::Decode(_))
        ));
    }
}
