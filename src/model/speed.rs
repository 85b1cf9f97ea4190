use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A line rate in whole Gb/s (`400G`). 1G is the smallest rate railyard models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Speed(u32);

impl Speed {
    pub const fn gbps(g: u32) -> Self {
        Self(g)
    }

    pub fn as_gbps(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}G", self.0)
    }
}

impl FromStr for Speed {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let digits = t
            .strip_suffix('G')
            .or_else(|| t.strip_suffix('g'))
            .or_else(|| t.strip_suffix("Gb/s"))
            .or_else(|| t.strip_suffix("GbE"))
            .ok_or_else(|| format!("`{s}` is not a speed; write it like `400G`"))?;
        match digits.parse::<u32>() {
            Ok(g) if g > 0 => Ok(Speed(g)),
            _ => Err(format!("`{s}` is not a speed; write it like `400G`")),
        }
    }
}

impl Serialize for Speed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Speed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Speed {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Speed".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9]+G$",
            "description": "Line rate, e.g. `400G`",
            "examples": ["400G", "200G", "800G", "100G", "1G"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        assert_eq!("400G".parse::<Speed>(), Ok(Speed::gbps(400)));
        assert_eq!(Speed::gbps(800).to_string(), "800G");
        assert!("fast".parse::<Speed>().is_err());
        assert!("0G".parse::<Speed>().is_err());
    }
}
