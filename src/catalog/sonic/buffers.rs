//! The HWSKU's buffer data: the lossless headroom table buffermgrd reads
//! (`pg_profile_lookup.ini`) and the pool sizes of its buffer templates.

/// Which `buffers_defaults_<topology>.j2` applies: `buffers_config.j2` picks `t0` for a
/// ToRRouter, `t1` for a LeafRouter (and `t2` for a SpineRouter, which no Mellanox HWSKU ships).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Topology {
    T0,
    T1,
}

/// One row of `pg_profile_lookup.ini`: the lossless PG profile buffermgrd creates for a port of
/// that speed and cable length (sonic-swss `cfgmgr/buffermgr.cpp`, `doSpeedUpdateTask`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Headroom {
    pub speed_mbps: u32,
    /// The cable length as written in the table (`5m`), and in metres.
    pub cable: String,
    pub cable_m: u32,
    pub size: String,
    pub xon: String,
    pub xoff: String,
    pub threshold: String,
    pub xon_offset: Option<String>,
}

/// The `{% set … %}` values of `buffers_defaults_<topology>.j2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferDefaults {
    pub default_cable: String,
    pub ingress_lossless_pool_size: String,
    pub ingress_lossy_pool_size: String,
    pub egress_lossless_pool_size: String,
    pub egress_lossy_pool_size: String,
}

/// `speed cable size xon xoff threshold [xon_offset]`, `#` comments; as
/// `BufferMgr::readPgProfileLookupFile` reads it.
pub fn headroom(text: &str) -> Result<Vec<Headroom>, String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if !(6..=7).contains(&f.len()) {
            return Err(format!("`{line}`: expected 6 or 7 columns"));
        }
        let speed_mbps = f[0].parse().map_err(|_| format!("`{line}`: speed"))?;
        let cable_m = f[1]
            .strip_suffix('m')
            .and_then(|m| m.parse().ok())
            .ok_or_else(|| format!("`{line}`: cable length"))?;
        for v in &f[2..] {
            v.parse::<i64>()
                .map_err(|_| format!("`{line}`: `{v}` is not a number"))?;
        }
        out.push(Headroom {
            speed_mbps,
            cable: f[1].to_string(),
            cable_m,
            size: f[2].to_string(),
            xon: f[3].to_string(),
            xoff: f[4].to_string(),
            threshold: f[5].to_string(),
            xon_offset: f.get(6).map(|s| (*s).to_string()),
        });
    }
    Ok(out)
}

/// The quoted value of `{% set <name> = '<value>' %}`.
fn set_value<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let body = l.trim().strip_prefix("{%")?.strip_suffix("%}")?.trim();
        let (lhs, rhs) = body.strip_prefix("set ")?.split_once('=')?;
        (lhs.trim() == name).then(|| rhs.trim().trim_matches(|c| c == '\'' || c == '"'))
    })
}

pub fn defaults(text: &str) -> Result<BufferDefaults, String> {
    let get = |name: &str| {
        set_value(text, name)
            .map(str::to_string)
            .ok_or_else(|| format!("no `{{% set {name} = … %}}`"))
    };
    Ok(BufferDefaults {
        default_cable: get("default_cable")?,
        ingress_lossless_pool_size: get("ingress_lossless_pool_size")?,
        ingress_lossy_pool_size: get("ingress_lossy_pool_size")?,
        egress_lossless_pool_size: get("egress_lossless_pool_size")?,
        egress_lossy_pool_size: get("egress_lossy_pool_size")?,
    })
}

/// Whether `create_only_config_db_buffers.json` sets the flag to "true".
pub fn create_only_config_db_buffers(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| {
        v.pointer("/DEVICE_METADATA/localhost/create_only_config_db_buffers")
            .and_then(serde_json::Value::as_str)
            == Some("true")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_lookup_table_and_the_template_sets() {
        let rows =
            headroom("# speed cable size xon xoff threshold\n 400000 5m 250880 19456 231424 0\n")
                .unwrap();
        assert_eq!(rows[0].cable_m, 5);
        assert_eq!(rows[0].xoff, "231424");
        assert!(headroom("400000 5m 1 2\n").is_err());
        let d = defaults(
            "{% set default_cable = '5m' %}\n{% set ingress_lossless_pool_size =  '52161690' %}\n\
             {% set ingress_lossy_pool_size = '1' %}\n{% set egress_lossless_pool_size = '2' %}\n\
             {% set egress_lossy_pool_size = '3' %}\n",
        )
        .unwrap();
        assert_eq!(d.ingress_lossless_pool_size, "52161690");
        assert!(defaults("{% set default_cable = '5m' %}").is_err());
    }
}
