//! The network architecture as a serialisable configuration.

use crate::error::NetError;
use serde::{Deserialize, Serialize};

/// Architecture of the policy/value network. Every field has a default, so a
/// config file names only what it changes; unknown fields are rejected.
///
/// The same struct is stored in checkpoints and `model.json`: loading a file
/// whose architecture differs from the one asked for is an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetConfig {
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
}

impl Default for NetConfig {
    /// The default CPU net: 6 blocks x 64 channels.
    fn default() -> Self {
        NetConfig {
            blocks: 6,
            channels: 64,
            global_pool_every: 3,
            policy_channels: 32,
            value_channels: 32,
            value_hidden: 128,
            plies_left_head: true,
        }
    }
}

impl NetConfig {
    /// A tiny net for tests: 2 blocks x 16 channels.
    pub fn tiny() -> NetConfig {
        NetConfig {
            blocks: 2,
            channels: 16,
            global_pool_every: 2,
            policy_channels: 8,
            value_channels: 8,
            value_hidden: 16,
            plies_left_head: true,
        }
    }

    /// Checks that every size is usable.
    pub fn validate(&self) -> Result<(), NetError> {
        let positive = [
            ("channels", self.channels),
            ("policy_channels", self.policy_channels),
            ("value_channels", self.value_channels),
            ("value_hidden", self.value_hidden),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(NetError::Config(format!("{name} must be at least 1")));
            }
            if value > 4096 {
                return Err(NetError::Config(format!(
                    "{name} = {value} is beyond the supported 4096"
                )));
            }
        }
        if self.blocks > 256 {
            return Err(NetError::Config(format!(
                "blocks = {} is beyond the supported 256",
                self.blocks
            )));
        }
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
    fn global_pool_blocks() {
        let config = NetConfig::default();
        let blocks: Vec<usize> = (0..6)
            .filter(|&i| config.block_has_global_pool(i))
            .collect();
        assert_eq!(blocks, [2, 5]);
    }
}
