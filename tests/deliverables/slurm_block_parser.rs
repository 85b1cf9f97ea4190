//! A transcription of Slurm's readers of the block topology, at SchedMD/slurm tag
//! slurm-25-05-8-1 (commit 90ff1dd4058b3ec2df25306a3917650efa59537f), so the files railyard
//! writes are read the way slurmctld reads them where no Slurm ≥ 23.11 is installed (Debian
//! ships 22.05, which predates topology/block):
//! - `topology.conf`: `src/plugins/topology/block/block_record.c` `_read_topo_file` (options
//!   `BlockName` (S_P_ARRAY, `_parse_block` reads `Nodes` from the rest of the line) and
//!   `BlockSizes` (S_P_STRING), the `BlockSizes` loop: `atoi` each comma-separated size, the
//!   first is the base, every size a multiple of the base whose quotient is a power of two and
//!   the level ≤ 15, else fatal "Invalid BlockSizes value"), and `block_record_validate` (no
//!   blocks → "No blocks configured"; a block without a name, a name defined twice, fatal);
//!   the line syntax of `src/common/parse_config.c` (`Key=Value` words, `#` to end of line,
//!   keys case-insensitive, an unknown key is an error).
//! - `topology.yaml`: `src/interfaces/topology.c` `_parse_yaml` and the v0.0.43 data_parser
//!   (`src/plugins/data_parser/v0.0.43/parsers.c`: `TOPOLOGY_CONF` fields `topology`,
//!   `cluster_default`, `block`, `flat`, `tree`, where `block` is mutually exclusive with the
//!   others; `TOPOLOGY_BLOCK_CONFIG` fields `block_sizes` (INT32_LIST) and `blocks` (list of
//!   `block`, `nodes`)), with `_list_to_bitmap`'s checks on `block_sizes`.
//!
//! Node names in `Nodes=` are hostlist expressions; they are expanded by the test's own
//! expander (`scheduler::expand`).

use std::collections::BTreeSet;

/// One block as Slurm holds it: name and hostlist expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlurmBlock {
    pub name: String,
    pub nodes: Option<String>,
}

/// What `block_record_validate` is left with: the blocks in file order and the block levels
/// (`ctx->block_levels`, the power-of-two multipliers of the base).
#[derive(Debug)]
pub struct BlockConfig {
    pub blocks: Vec<SlurmBlock>,
    pub base: Option<u32>,
    pub levels: BTreeSet<u32>,
}

/// `parse_config.c`: strip a `#` comment (a `\#` is kept as `#`).
fn strip_comment(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'#') => {
                out.push('#');
                chars.next();
            }
            '#' => break,
            c => out.push(c),
        }
    }
    out
}

/// `_read_topo_file` + the checks of `block_record_validate` that need no node table.
pub fn read_topology_conf(text: &str) -> Result<BlockConfig, String> {
    let mut blocks = Vec::new();
    let mut sizes: Option<String> = None;
    for raw in text.lines() {
        let line = strip_comment(raw);
        let mut words = line.split_whitespace().peekable();
        while let Some(word) = words.next() {
            let (k, v) = word
                .split_once('=')
                .ok_or_else(|| format!("Parsing error at unrecognized key: {word}"))?;
            match k.to_ascii_lowercase().as_str() {
                "blockname" => {
                    // `_parse_block`: the rest of the line holds `Nodes` only.
                    let mut nodes = None;
                    for rest in words.by_ref() {
                        let (rk, rv) = rest
                            .split_once('=')
                            .ok_or_else(|| format!("Parsing error at unrecognized key: {rest}"))?;
                        if !rk.eq_ignore_ascii_case("Nodes") {
                            return Err(format!("Parsing error at unrecognized key: {rk}"));
                        }
                        nodes = Some(rv.to_string());
                    }
                    blocks.push(SlurmBlock {
                        name: v.to_string(),
                        nodes,
                    });
                }
                "blocksizes" => sizes = Some(v.to_string()),
                _ => return Err(format!("Parsing error at unrecognized key: {k}")),
            }
        }
    }
    let (base, levels) = match sizes {
        None => (None, (0..4).collect()),
        Some(s) => block_sizes_conf(&s)?,
    };
    validate(BlockConfig {
        blocks,
        base,
        levels,
    })
}

/// atoi: leading digits, 0 when none.
fn atoi(s: &str) -> i64 {
    let digits: String = s
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or(0)
}

/// The `BlockSizes` loop of `_read_topo_file`.
fn block_sizes_conf(s: &str) -> Result<(Option<u32>, BTreeSet<u32>), String> {
    let mut base: i64 = 0;
    let mut levels = BTreeSet::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let bsize = atoi(part);
        let bad = || format!("Invalid BlockSizes value: {part}");
        if bsize <= 0 {
            return Err(bad());
        }
        if base == 0 {
            base = bsize;
        }
        if bsize % base != 0 {
            return Err(bad());
        }
        let level = level_of(bsize / base).ok_or_else(bad)?;
        if level > 15 {
            return Err(bad());
        }
        levels.insert(level);
    }
    Ok((u32::try_from(base).ok(), levels))
}

/// `log2(block_level)` when it is a whole number.
fn level_of(multiple: i64) -> Option<u32> {
    (multiple > 0 && (multiple & (multiple - 1)) == 0).then(|| multiple.trailing_zeros())
}

/// `block_record_validate`: at least one block, every block named once.
fn validate(c: BlockConfig) -> Result<BlockConfig, String> {
    if c.blocks.is_empty() {
        return Err("No blocks configured".into());
    }
    let mut seen = BTreeSet::new();
    for b in &c.blocks {
        if b.name.is_empty() {
            return Err("Can't create a block without a name".into());
        }
        if !seen.insert(b.name.clone()) {
            return Err(format!("Block ({}) has already been defined", b.name));
        }
    }
    Ok(c)
}

/// One topology of topology.yaml as `_parse_yaml` leaves it.
#[derive(Debug)]
pub struct YamlTopology {
    pub name: String,
    pub cluster_default: bool,
    /// `topology/block`, `topology/tree` or `topology/flat`.
    pub plugin: String,
    pub block: Option<BlockConfig>,
}

/// `TOPOLOGY_CONF_ARRAY`: a dict (one topology) or a list of them; cluster defaults sorted
/// first (`_cmp_tctx`, a stable qsort in practice for two classes).
pub fn read_topology_yaml(text: &str) -> Result<Vec<YamlTopology>, String> {
    let doc: serde_json::Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    let items: Vec<&serde_json::Value> = match &doc {
        serde_json::Value::Array(s) => s.iter().collect(),
        m @ serde_json::Value::Object(_) => vec![m],
        _ => return Err("Unexpected type when expecting a list".into()),
    };
    let mut out = items
        .into_iter()
        .map(topology_conf)
        .collect::<Result<Vec<_>, _>>()?;
    out.sort_by_key(|t| !t.cluster_default);
    Ok(out)
}

fn topology_conf(v: &serde_json::Value) -> Result<YamlTopology, String> {
    let m = v
        .as_object()
        .ok_or("Rejecting topology when dictionary expected")?;
    let mut t = YamlTopology {
        name: String::new(),
        cluster_default: false,
        plugin: String::new(),
        block: None,
    };
    for (k, val) in m {
        let k = k.as_str();
        match k {
            "topology" => t.name = val.as_str().ok_or("topology: string expected")?.into(),
            "cluster_default" => {
                t.cluster_default = val.as_bool().ok_or("cluster_default: bool expected")?
            }
            "block" | "tree" | "flat" => {
                let non_empty = val.as_object().is_some_and(|m| !m.is_empty());
                if !t.plugin.is_empty() && non_empty {
                    return Err(format!(
                        "Field {k} is mutually excusive with the other plugin fields"
                    ));
                }
                if k == "block" && non_empty {
                    t.plugin = "topology/block".into();
                    t.block = Some(block_config(val)?);
                } else if non_empty || k == "flat" {
                    t.plugin = format!("topology/{k}");
                }
            }
            other => return Err(format!("unknown field {other}")),
        }
    }
    Ok(t)
}

/// `TOPOLOGY_BLOCK_CONFIG` and `_list_to_bitmap` over `block_sizes`.
fn block_config(v: &serde_json::Value) -> Result<BlockConfig, String> {
    let m = v.as_object().ok_or("block: dictionary expected")?;
    let mut blocks = Vec::new();
    let mut base = None;
    let mut levels = BTreeSet::from([0]);
    if let Some(list) = m.get("block_sizes") {
        let sizes = list.as_array().ok_or("block_sizes: list expected")?;
        for s in sizes {
            let size = s.as_i64().ok_or("block_sizes: integer expected")?;
            let bad = || "Invalid BlockSizes value in topology".to_string();
            if size <= 0 {
                return Err(bad());
            }
            let b = *base.get_or_insert(size);
            if size % b != 0 {
                return Err(bad());
            }
            let level = level_of(size / b).ok_or_else(bad)?;
            if level >= 16 {
                return Err(bad());
            }
            levels.insert(level);
        }
    }
    if let Some(list) = m.get("blocks") {
        let entries: Vec<&serde_json::Value> = match list {
            serde_json::Value::Array(s) => s.iter().collect(),
            d @ serde_json::Value::Object(_) => vec![d],
            _ => return Err("blocks: unexpected type when expecting a list".into()),
        };
        for e in entries {
            let str_field = |f: &str| e.get(f).and_then(|x| x.as_str()).map(str::to_string);
            blocks.push(SlurmBlock {
                name: str_field("block").unwrap_or_default(),
                nodes: str_field("nodes"),
            });
        }
    }
    validate(BlockConfig {
        blocks,
        base: base.and_then(|b| u32::try_from(b).ok()),
        levels,
    })
}
