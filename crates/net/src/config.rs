//! The network architecture as a serialisable configuration.

use crate::error::NetError;
use serde::{Deserialize, Serialize};
use shashki_search::ranges::{self, KeyRange};

/// Architecture of the policy/value network. Every field has a default, so a
/// config file names only what it changes; unknown fields are rejected.
///
/// The same struct is stored in checkpoints and `model.json`: loading a file
/// whose architecture differs from the one asked for is an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetConfig {
    /// Which network: the 8x8 ResNet or the 32-square diagonal net. Files
    /// written before the kinds existed have no `kind` and are 8x8 nets.
    pub kind: NetKind,
    /// Residual blocks in the tower (two 3x3 convolutions each).
    pub blocks: usize,
    /// Channels of every tower convolution.
    pub channels: usize,
    /// Every `global_pool_every`-th block (the 3rd, 6th, ... for 3) adds a
    /// KataGo-style global pooling bias after its first convolution; 0 turns
    /// it off.
    pub global_pool_every: usize,
    /// Channels of the policy head's hidden 1x1 convolution.
    pub policy_channels: usize,
    /// Channels of the value head's 1x1 convolution.
    pub value_channels: usize,
    /// Width of the value head's hidden fully connected layer.
    pub value_hidden: usize,
    /// Whether the net predicts the number of plies left in the game.
    pub plies_left_head: bool,
    /// `diag32` only: the diagonal convolution also reads the four squares
    /// two diagonal steps away (where a man lands after a capture), nine
    /// taps instead of five.
    pub jump_taps: bool,
}

/// The network kinds (`[net] kind = "..."`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NetKind {
    /// A ResNet of 3x3 convolutions over the full 8x8 board (light squares
    /// included).
    #[default]
    #[serde(rename = "resnet8x8")]
    Resnet8x8,
    /// A ResNet over the 32 playable squares only, whose convolutions mix
    /// each square with its diagonal neighbours (see `crate::diag`).
    #[serde(rename = "diag32")]
    Diag32,
}

impl NetKind {
    /// The name used in config files and `model.json`.
    pub fn name(self) -> &'static str {
        match self {
            NetKind::Resnet8x8 => "resnet8x8",
            NetKind::Diag32 => "diag32",
        }
    }
}

impl std::fmt::Display for NetKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Default for NetConfig {
    /// The default CPU net: 6 blocks x 64 channels.
    fn default() -> Self {
        NetConfig {
            kind: NetKind::Resnet8x8,
            blocks: 6,
            channels: 64,
            global_pool_every: 3,
            policy_channels: 32,
            value_channels: 32,
            value_hidden: 128,
            plies_left_head: true,
            jump_taps: false,
        }
    }
}

/// The range of every size, both ends included, stated once
/// ([`NetConfig::validate`] and a run config's `[net]` use it).
pub const NET_RANGES: &[KeyRange] = &[
    ("blocks", 0.0, 256.0),
    ("channels", 1.0, 4096.0),
    ("global_pool_every", 0.0, 256.0),
    ("policy_channels", 1.0, 4096.0),
    ("value_channels", 1.0, 4096.0),
    ("value_hidden", 1.0, 4096.0),
];

impl NetConfig {
    /// A tiny net for tests: 2 blocks x 16 channels.
    pub fn tiny() -> NetConfig {
        NetConfig {
            kind: NetKind::Resnet8x8,
            blocks: 2,
            channels: 16,
            global_pool_every: 2,
            policy_channels: 8,
            value_channels: 8,
            value_hidden: 16,
            plies_left_head: true,
            jump_taps: false,
        }
    }

    /// The tiny test net as the given kind.
    pub fn tiny_of(kind: NetKind) -> NetConfig {
        NetConfig {
            kind,
            ..NetConfig::tiny()
        }
    }

    /// Taps of each diagonal convolution of a `diag32` net: the square
    /// itself, its four diagonal neighbours and, with `jump_taps`, the four
    /// squares two steps away.
    pub fn diagonal_taps(&self) -> usize {
        if self.jump_taps { 9 } else { 5 }
    }

    /// Checks that every size is usable ([`NET_RANGES`]).
    pub fn validate(&self) -> Result<(), NetError> {
        if self.jump_taps && self.kind != NetKind::Diag32 {
            return Err(NetError::Config(format!(
                "jump_taps applies to kind = \"diag32\" only, this net is {:?}",
                self.kind.name()
            )));
        }
        let values = shashki_search::range_fields!(self;
            blocks, channels, global_pool_every, policy_channels, value_channels, value_hidden,
        );
        ranges::check(NET_RANGES, &values).map_err(|e| NetError::Config(e.to_string()))?;
        Ok(())
    }

    /// True if block `index` (0-based) has a global pooling bias.
    pub fn block_has_global_pool(&self, index: usize) -> bool {
        self.global_pool_every > 0 && (index + 1).is_multiple_of(self.global_pool_every)
    }

    /// The configuration as compact JSON (for headers and messages).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("NetConfig serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_json_uses_defaults_and_unknown_fields_fail() {
        let config: NetConfig = serde_json::from_str(r#"{"blocks": 10}"#).unwrap();
        assert_eq!(config.blocks, 10);
        assert_eq!(config.channels, 64);
        let err = serde_json::from_str::<NetConfig>(r#"{"blocks": 1, "chanels": 3}"#);
        assert!(err.unwrap_err().to_string().contains("chanels"));
    }

    #[test]
    fn validation_names_the_field() {
        let config = NetConfig {
            channels: 0,
            ..NetConfig::default()
        };
        assert!(
            config
                .validate()
                .unwrap_err()
                .to_string()
                .contains("channels")
        );
        assert!(NetConfig::default().validate().is_ok());
    }

    #[test]
    fn kind_defaults_to_the_8x8_net_and_unknown_kinds_fail() {
        let old: NetConfig = serde_json::from_str(r#"{"blocks": 4, "channels": 32}"#).unwrap();
        assert_eq!(old.kind, NetKind::Resnet8x8);
        let diag: NetConfig = serde_json::from_str(r#"{"kind": "diag32"}"#).unwrap();
        assert_eq!(diag.kind, NetKind::Diag32);
        assert!(diag.to_json().contains(r#""kind":"diag32""#));
        let err = serde_json::from_str::<NetConfig>(r#"{"kind": "diag64"}"#).unwrap_err();
        assert!(err.to_string().contains("diag64"), "{err}");
        let jumps_on_8x8 = NetConfig {
            jump_taps: true,
            ..NetConfig::default()
        };
        let err = jumps_on_8x8.validate().unwrap_err().to_string();
        assert!(
            err.contains("jump_taps") && err.contains("resnet8x8"),
            "{err}"
        );
    }

    #[test]
    fn global_pool_blocks() {
        let config = NetConfig::default();
        let blocks: Vec<usize> = (0..6)
            .filter(|&i| config.block_has_global_pool(i))
            .collect();
        assert_eq!(blocks, [2, 5]);
    }
}
