//! The messages of `onnx.proto` (ONNX IR version 8) that our exports use,
//! as prost derives; field numbers and types follow
//! <https://github.com/onnx/onnx/blob/main/onnx/onnx.proto>. Fields we never
//! write or read are left out: protobuf decoding skips unknown fields, so a
//! file with them (written by other tools) still decodes.

/// `TensorProto.DataType.FLOAT`.
pub const FLOAT: i32 = 1;
/// `TensorProto.DataType.INT64`.
pub const INT64: i32 = 7;

/// A whole model: the graph, the operator sets it needs, metadata.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// IR version of the file format.
    #[prost(int64, optional, tag = "1")]
    pub ir_version: Option<i64>,
    /// Operator sets the graph's nodes come from.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// The tool that wrote the file.
    #[prost(string, optional, tag = "2")]
    pub producer_name: Option<String>,
    /// Its version.
    #[prost(string, optional, tag = "3")]
    pub producer_version: Option<String>,
    /// Reverse-DNS namespace of the model.
    #[prost(string, optional, tag = "4")]
    pub domain: Option<String>,
    /// Version of the model.
    #[prost(int64, optional, tag = "5")]
    pub model_version: Option<i64>,
    /// Human-readable description.
    #[prost(string, optional, tag = "6")]
    pub doc_string: Option<String>,
    /// The computation.
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    /// Free key/value metadata.
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

/// An operator set: a domain (`""` is the default `ai.onnx`) and its version.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// The domain.
    #[prost(string, optional, tag = "1")]
    pub domain: Option<String>,
    /// Its version (the opset).
    #[prost(int64, optional, tag = "2")]
    pub version: Option<i64>,
}

/// A metadata entry.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    /// Key.
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    /// Value.
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

/// Nodes in topological order, the constant tensors, inputs and outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// The nodes, in topological order.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// Name of the graph.
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// Constant tensors (the weights).
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// Description.
    #[prost(string, optional, tag = "10")]
    pub doc_string: Option<String>,
    /// The graph's inputs.
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// The graph's outputs.
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

/// One operator call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// Names of its inputs.
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// Names of its outputs.
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// Name of the node.
    #[prost(string, optional, tag = "3")]
    pub name: Option<String>,
    /// The operator, e.g. `Conv`.
    #[prost(string, optional, tag = "4")]
    pub op_type: Option<String>,
    /// The operator's domain (`""`: `ai.onnx`).
    #[prost(string, optional, tag = "7")]
    pub domain: Option<String>,
    /// Attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
}

/// `AttributeProto.AttributeType` values we use.
pub mod attribute_type {
    /// A float.
    pub const FLOAT: i32 = 1;
    /// An integer.
    pub const INT: i32 = 2;
    /// A list of integers.
    pub const INTS: i32 = 7;
}

/// A named attribute of a node.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// Name.
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// Which field holds the value ([`attribute_type`]).
    #[prost(int32, optional, tag = "20")]
    pub r#type: Option<i32>,
    /// A float value.
    #[prost(float, optional, tag = "2")]
    pub f: Option<f32>,
    /// An integer value.
    #[prost(int64, optional, tag = "3")]
    pub i: Option<i64>,
    /// A list of integers.
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
}

/// A constant tensor.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// Shape.
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// Element type ([`FLOAT`], [`INT64`]).
    #[prost(int32, optional, tag = "2")]
    pub data_type: Option<i32>,
    /// Name (the name nodes refer to it by).
    #[prost(string, optional, tag = "8")]
    pub name: Option<String>,
    /// Values, little endian, row-major.
    #[prost(bytes = "vec", optional, tag = "9")]
    pub raw_data: Option<Vec<u8>>,
}

/// A graph input or output: name and type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// Name.
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// Type.
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
    /// Description.
    #[prost(string, optional, tag = "3")]
    pub doc_string: Option<String>,
}

/// A value's type (only tensors here).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// A tensor type.
    #[prost(message, optional, tag = "1")]
    pub tensor_type: Option<TensorTypeProto>,
}

/// `TypeProto.Tensor`: element type and shape.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorTypeProto {
    /// Element type.
    #[prost(int32, optional, tag = "1")]
    pub elem_type: Option<i32>,
    /// Shape.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// A shape: one entry per dimension.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// The dimensions.
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

/// `TensorShapeProto.Dimension`: a size or a symbolic name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    /// A fixed size.
    #[prost(int64, optional, tag = "1")]
    pub dim_value: Option<i64>,
    /// A named, dynamic size (`"batch"`).
    #[prost(string, optional, tag = "2")]
    pub dim_param: Option<String>,
}
