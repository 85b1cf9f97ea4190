//! The deliverables of a fabric above the spec's `report.per_pod_above_gpus`: `report.html` as
//! the index, `report/<pod>.html` per pod, `cabling.xlsx` as the fabric's summary workbook
//! (summary, BOM, the pod workbooks' names) and `workbooks/<pod>.xlsx` per pod (its cabling,
//! racks, port maps and addresses), then the label sheets as for one page.
//!
//! Rebuild by pod: each pod page and pod workbook is a memo unit whose digest is taken over
//! what it shows (the page's data block, racks and figures; the workbook's rows), so a change
//! in one SU renders again only its pod's page and workbook, the index and the summary.

use super::page::{self, PodPage};
use super::pods::Pods;
use super::{Csv, InFile, LinkNames, Tables, xlsx};
use crate::artifacts::summary::Summary;
use crate::design::Design;
use crate::output::FileError;
use crate::output::{Memo, OutputFile, OutputGroup, Sink, unit_digest};

const INDEX: &str = "report.html";
const SUMMARY: &str = "cabling.xlsx";

pub fn files(
    design: &Design,
    findings: &crate::diag::Diagnostics,
    names: &LinkNames,
    summary: &Summary,
    files: &[OutputFile],
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), FileError> {
    let f = &design.fabric;
    let pods = Pods::of(f);
    let tables = Tables::read(files, true)?;
    let index =
        page::index_html(design, findings, &pods, summary, tables.bom.as_ref()).in_file(INDEX)?;
    sink(OutputFile::new(OutputGroup::Report, INDEX, index));
    summary_workbook(summary, &pods, &tables, sink, memo)?;
    let pages = PodPage::new(f, names, &pods, &tables.portmaps);
    let by_pod = RowsByPod::of(f, &pods, &tables);
    let order: Vec<usize> = (0..pods.len()).collect();
    let (pods_done, labels) = crate::parallel::join(
        || {
            crate::parallel::chunks(&order, |part| {
                for &k in part {
                    pod_page(&pages, k, sink, memo)?;
                    pod_workbook(&f.name, &pods, k, &tables, &by_pod, sink, memo)?;
                }
                Ok::<(), FileError>(())
            })
            .into_iter()
            .collect::<Result<(), FileError>>()
        },
        || {
            super::labels::files(f, names, sink, memo)?;
            super::sheets::files(f, names, sink)
        },
    );
    pods_done.and(labels)
}

/// `report/<pod>.html`, unless an earlier build wrote it from the same inputs.
fn pod_page(
    pages: &PodPage<'_>,
    k: usize,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), FileError> {
    let path = format!("report/{}.html", pages.pods.names[k]);
    let page = pages.prepare(k).in_file(&path)?;
    if memo.reuse(&path, &page.inputs) {
        return Ok(());
    }
    let inputs = page.inputs;
    let bytes = page.render().in_file(&path)?;
    memo.record(&path, &inputs, vec![path.clone()]);
    sink(OutputFile::new(OutputGroup::Report, &path, bytes));
    Ok(())
}

/// Every pod's rows of the cabling plan (either end in the pod), the address plan and the
/// node port map, and its switches' port maps (indices into `Tables::portmaps`).
struct RowsByPod {
    cabling: Vec<Vec<usize>>,
    addresses: Vec<Vec<usize>>,
    nodes: Vec<Vec<usize>>,
    portmaps: Vec<Vec<usize>>,
}

impl RowsByPod {
    fn of(f: &crate::topology::Fabric, pods: &Pods, t: &Tables<'_>) -> Self {
        let by_name: std::collections::BTreeMap<&str, usize> = f
            .devices_with_ids()
            .map(|(id, d)| (d.name.as_str(), pods.of_device[id]))
            .collect();
        let key = |name: &str| by_name.get(name).copied();
        let rows = |c: Option<&Csv>, cols: &[&str]| {
            c.map_or_else(
                || vec![Vec::new(); pods.len()],
                |c| c.rows_by(cols, key, pods.len()),
            )
        };
        let node_map = t.portmaps.iter().find(|(n, _)| *n == NODES).map(|(_, c)| c);
        let mut portmaps = vec![Vec::new(); pods.len()];
        for (i, (name, _)) in t.portmaps.iter().enumerate() {
            if let Some(p) = key(name).filter(|_| *name != NODES) {
                portmaps[p].push(i);
            }
        }
        Self {
            cabling: rows(t.cabling.as_ref(), &["a_device", "b_device"]),
            addresses: rows(t.addresses.as_ref(), &["device"]),
            nodes: rows(node_map, &["node"]),
            portmaps,
        }
    }
}

/// The node ports' map (`portmaps/nodes.csv`).
const NODES: &str = "nodes";

/// `workbooks/<pod>.xlsx`: the pod's figures, cabling (and its racks), port maps, node ports
/// and addresses.
fn pod_workbook(
    cluster: &str,
    pods: &Pods,
    k: usize,
    t: &Tables<'_>,
    by_pod: &RowsByPod,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), FileError> {
    let name = &pods.names[k];
    let path = format!("workbooks/{name}.xlsx");
    let pick = |c: Option<&Csv>, rows: &[usize]| {
        c.map(|c| {
            c.pick(rows)
                .ok_or_else(|| "larger than a workbook holds (4 GiB of text)".to_string())
        })
        .transpose()
        .in_file(&path)
    };
    let cabling = pick(t.cabling.as_ref(), &by_pod.cabling[k])?;
    let addresses = pick(t.addresses.as_ref(), &by_pod.addresses[k])?;
    let node_map = t.portmaps.iter().find(|(n, _)| *n == NODES).map(|(_, c)| c);
    let nodes = pick(node_map, &by_pod.nodes[k])?;
    let mut portmaps: Vec<(&str, &Csv)> = by_pod.portmaps[k]
        .iter()
        .map(|&i| (t.portmaps[i].0, &t.portmaps[i].1))
        .collect();
    if let Some(n) = &nodes {
        portmaps.push((NODES, n));
    }
    let rows = vec![
        ("cluster".to_string(), cluster.to_string(), false),
        ("pod".to_string(), name.clone(), false),
        ("holds".to_string(), pods.spans[k].clone(), false),
    ];
    let mut parts: Vec<&[u8]> = vec![
        cluster.as_bytes(),
        path.as_bytes(),
        pods.spans[k].as_bytes(),
    ];
    for c in [&cabling, &addresses].into_iter().flatten() {
        parts.push(c.text().as_bytes());
    }
    for (switch, c) in &portmaps {
        parts.extend([switch.as_bytes(), c.text().as_bytes()]);
    }
    let inputs = unit_digest(&parts);
    if memo.reuse(&path, &inputs) {
        return Ok(());
    }
    let bytes = xlsx::workbook(&rows, cabling.as_ref(), &portmaps, None, addresses.as_ref())
        .in_file(&path)?;
    memo.record(&path, &inputs, vec![path.clone()]);
    sink(OutputFile::new(OutputGroup::Report, &path, bytes));
    Ok(())
}

/// `cabling.xlsx` as the fabric's summary: the figures, the pod workbooks and the BOM.
fn summary_workbook(
    summary: &Summary,
    pods: &Pods,
    t: &Tables<'_>,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), FileError> {
    let mut rows = xlsx::summary_rows(summary);
    for (name, span) in pods.names.iter().zip(&pods.spans) {
        rows.push((
            format!("workbook: {span}"),
            format!("workbooks/{name}.xlsx"),
            false,
        ));
    }
    let mut parts: Vec<&[u8]> = Vec::new();
    for (k, v, _) in &rows {
        parts.extend([k.as_bytes(), v.as_bytes()]);
    }
    if let Some(b) = &t.bom {
        parts.push(b.text().as_bytes());
    }
    let inputs = unit_digest(&parts);
    if memo.reuse(SUMMARY, &inputs) {
        return Ok(());
    }
    let bytes = xlsx::workbook(&rows, None, &[], t.bom.as_ref(), None).in_file(SUMMARY)?;
    memo.record(SUMMARY, &inputs, vec![SUMMARY.into()]);
    sink(OutputFile::new(OutputGroup::Report, SUMMARY, bytes));
    Ok(())
}
