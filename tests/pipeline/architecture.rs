//! The shape of the code, enforced on the source (parsed with `syn`, not searched as text):
//!
//! - the stage order of ARCHITECTURE.md ("Architecture invariants"): every path a module names
//!   outside its `#[cfg(test)]` part resolves to itself, an earlier stage or a foundation;
//! - no arrow back through the crate root: `src/lib.rs` is the pipeline, and only the edges may
//!   name what it defines (`compile*`, `Compiled`, the built-in example);
//! - no re-export shims: a module never re-exports another top-level module's items;
//! - no import cycles between files (a file naming its own parent modules, the façade it
//!   belongs to, does not count);
//! - only the pipeline (`src/lib.rs`) runs a stage (`topology::build`, `physical::solve`, …), so
//!   no consumer of the `Design` computes a stage's result a second time;
//! - no device or cable crosses a stage as a bare integer position: public fields and
//!   parameters named `device`, `link`, `cable`, `position` are typed (`DeviceId`, `LinkId`);
//! - no function over 120 lines, in `src/`, `tests/` and `benches/`.
//!
//! Each check is a function over `(path, text)` pairs, and a test feeds each a small crate that
//! breaks its rule, so every check is shown to fail on what it exists for.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

/// What each top-level module of the library may name: itself, earlier stages, and the
/// foundations (`diag`, `model`, `output`, `parallel`, `catalog`) it uses. `render` sees intent,
/// the tenant plan (`tenancy`'s value, which the intent carries and `tenants/plan.yaml` writes)
/// and the vendor data of `catalog`, never the spec or the graph; the edge modules (`lab`,
/// `cabling`, `push`, `capture`) read what the stages produce.
const ALLOWED: &[(&str, &[&str])] = &[
    ("diag", &[]),
    // Splitting independent items over the cores: knows no stage.
    ("parallel", &[]),
    ("model", &["diag"]),
    ("output", &[]),
    ("catalog", &["diag", "model"]),
    ("spec", &["diag", "model", "catalog"]),
    ("topology", &["diag", "model", "catalog", "spec"]),
    // The physical layer: every cable of the topology solved into parts from the catalog.
    (
        "physical",
        &["diag", "model", "catalog", "spec", "topology"],
    ),
    (
        "addressing",
        &["diag", "model", "catalog", "spec", "topology"],
    ),
    (
        "tenancy",
        &["diag", "model", "catalog", "spec", "topology", "addressing"],
    ),
    (
        "intent",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "addressing",
            "tenancy",
            "parallel",
        ],
    ),
    (
        "render",
        &[
            "diag", "model", "catalog", "tenancy", "intent", "output", "parallel",
        ],
    ),
    // The hand-off after the compiler: every stage's result in one value.
    (
        "design",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "physical",
            "addressing",
            "tenancy",
            "intent",
        ],
    ),
    (
        "artifacts",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "addressing",
            "tenancy",
            "intent",
            "physical",
            "design",
            "output",
            "parallel",
        ],
    ),
    // The report: the documents people look at, drawn from the design and the CSV artifacts it
    // reads back (the cabling names `artifacts` resolves), with the failure domains `impact`
    // analyses.
    (
        "report",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "addressing",
            "tenancy",
            "intent",
            "physical",
            "design",
            "artifacts",
            "impact",
            "output",
            "parallel",
        ],
    ),
    // Failure impact: what each single switch or cable failure costs, from the design's fabric,
    // tenant plan and scheduler blocks (the report shows it).
    (
        "impact",
        &[
            "diag", "model", "catalog", "spec", "topology", "tenancy", "design",
        ],
    ),
    // The lab's plan: what the virtual lab (and any export of its topology) builds, from the
    // design, never from rendered text.
    (
        "labplan",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "addressing",
            "tenancy",
            "intent",
            "design",
        ],
    ),
    // Topology exports for the tools a data center runs (Air, containerlab, PTM, UFM CVT,
    // NetBox): the lab plan and the compiled stages as other tools' files; the NetBox cables
    // are the cabling artifact's own, the FRR daemons file renders in render's environment.
    (
        "export",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "addressing",
            "tenancy",
            "intent",
            "render",
            "labplan",
            "artifacts",
            "design",
            "output",
        ],
    ),
    // The acceptance plan and its check: tests from the design's fabric and the nodes' intent;
    // the NCCL environment the host files carry is handed in by the edge. Its one diagnostic
    // (RY0910, a node port without an RDMA device) is located in the spec.
    (
        "acceptance",
        &["diag", "model", "topology", "intent", "design", "output"],
    ),
    (
        "capture",
        &["diag", "model", "topology", "intent", "output"],
    ),
    ("cabling", &["diag", "model", "topology", "output"]),
    // Day zero: device identities read beside the plan's switches, and from them and the design
    // the DHCP server's reservations and the ZTP files; never fed back into addressing.
    (
        "dayzero",
        &[
            "diag",
            "model",
            "topology",
            "addressing",
            "design",
            "output",
            "render",
        ],
    ),
    // What "the same config" means: canonical line forms, facts, the disruptive-change engine.
    // Pure; push, audit and change read configs through it.
    ("meaning", &["output"]),
    ("push", &["diag", "model", "output", "meaning"]),
    // The change between two designs, from their rendered files, read by config meaning.
    ("change", &["output", "meaning"]),
    (
        "lab",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "addressing",
            "tenancy",
            "intent",
            "render",
            "labplan",
            "impact",
            "acceptance",
            "artifacts",
            "design",
            "output",
        ],
    ),
];

/// What `src/lib.rs` defines that the edges (and only they) may name: the pipeline's entry
/// points and the built-in example.
const ROOT_FOR_EDGES: &[&str] = &[
    "EXAMPLES",
    "compile",
    "compile_for_platform",
    "compile_with",
    "compile_with_guids",
    "Compiled",
    "LAB_SMALL",
];
const EDGES: &[&str] = &["lab", "cabling", "push", "capture"];

const MAX_FN_LINES: usize = 120;

/// One parsed source file: its path, module path and what it names.
struct Unit {
    rel: String,
    /// `cli::outdir` for `src/cli/outdir/mod.rs`; empty for a crate root.
    module: Vec<String>,
    /// The binary (`main.rs`, `cli/`) or the library.
    bin: bool,
    /// Every path it names outside test code, made absolute (`crate::a::b::C` → `a b C`), with
    /// the crate it is in (`true`: the library, also for `railyard::` from the binary).
    named: Vec<Vec<String>>,
    /// `pub use` targets, absolute, with the name each is exported as (`*` for a glob).
    reexports: Vec<(String, Vec<String>)>,
    /// Names defined at the top of the file (items and `mod` declarations).
    defined: BTreeSet<String>,
}

fn module_of(rel: &str) -> (Vec<String>, bool) {
    let rel = rel.trim_start_matches("src/").trim_end_matches(".rs");
    let bin = rel == "main" || rel == "cli" || rel.starts_with("cli/");
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    (parts, bin)
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Collects the paths of one file (its non-test part).
struct Names<'a> {
    module: &'a [String],
    children: BTreeSet<String>,
    paths: Vec<(bool, Vec<String>)>,
    uses: Vec<(bool, String, Vec<String>)>,
}

impl Names<'_> {
    /// A path as written in this file, made absolute; `None` for paths outside the crate.
    fn absolute(&self, segs: &[String]) -> Option<Vec<String>> {
        let first = segs.first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" | "railyard" => Vec::new(),
            "self" => self.module.to_vec(),
            "super" => {
                let mut m = self.module.to_vec();
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop();
                    rest = &rest[1..];
                }
                m.extend(rest.iter().cloned());
                return Some(m);
            }
            c if self.children.contains(c) => {
                let mut m = self.module.to_vec();
                m.push(c.to_string());
                m.extend(segs[1..].iter().cloned());
                return Some(m);
            }
            _ => return None,
        };
        base.extend(segs[1..].iter().cloned());
        Some(base)
    }
}

fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut p = prefix.clone();
            if n.ident != "self" {
                p.push(n.ident.to_string());
            }
            let name = p.last().cloned().unwrap_or_default();
            out.push((name, p));
        }
        syn::UseTree::Rename(r) => {
            let mut p = prefix.clone();
            p.push(r.ident.to_string());
            out.push((r.rename.to_string(), p));
        }
        syn::UseTree::Glob(_) => out.push(("*".into(), prefix.clone())),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

/// Whether an item is compiled only for tests (`#[cfg(test)]`): the checks read the rest.
fn test_only_item(i: &syn::Item) -> bool {
    let attrs = match i {
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Impl(m) => &m.attrs,
        syn::Item::Use(u) => &u.attrs,
        syn::Item::Const(c) => &c.attrs,
        syn::Item::Static(c) => &c.attrs,
        syn::Item::Struct(s) => &s.attrs,
        _ => return false,
    };
    is_test_only(attrs)
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        if !test_only_item(i) {
            syn::visit::visit_item(self, i);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut found = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut found);
        let public = !matches!(u.vis, syn::Visibility::Inherited);
        for (name, p) in found {
            self.uses.push((public, name, p));
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.paths.push((false, segs));
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // Paths inside macro arguments (`format!("{}", crate::x::y())`): every run of
        // `ident :: ident …` in the tokens.
        let tokens: Vec<proc_macro2::TokenTree> = m.tokens.clone().into_iter().collect();
        macro_paths(&tokens, &mut self.paths);
        syn::visit::visit_macro(self, m);
    }
}

fn macro_paths(tokens: &[proc_macro2::TokenTree], out: &mut Vec<(bool, Vec<String>)>) {
    use proc_macro2::TokenTree;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                macro_paths(&inner, out);
                i += 1;
            }
            TokenTree::Ident(id) => {
                let mut segs = vec![id.to_string()];
                let mut j = i + 1;
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(n)),
                ) = (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
                {
                    if a.as_char() != ':' || b.as_char() != ':' {
                        break;
                    }
                    segs.push(n.to_string());
                    j += 3;
                }
                if segs.len() > 1 {
                    out.push((false, segs));
                }
                i = j;
            }
            _ => i += 1,
        }
    }
}

fn parse_unit(rel: &str, text: &str) -> Unit {
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let (module, bin) = module_of(rel);
    let mut defined = BTreeSet::new();
    let mut children = BTreeSet::new();
    for item in &file.items {
        let ident = match item {
            syn::Item::Mod(m) => {
                children.insert(m.ident.to_string());
                Some(&m.ident)
            }
            syn::Item::Fn(f) => Some(&f.sig.ident),
            syn::Item::Struct(s) => Some(&s.ident),
            syn::Item::Enum(e) => Some(&e.ident),
            syn::Item::Const(c) => Some(&c.ident),
            syn::Item::Static(s) => Some(&s.ident),
            syn::Item::Type(t) => Some(&t.ident),
            syn::Item::Trait(t) => Some(&t.ident),
            syn::Item::Macro(m) => m.ident.as_ref(),
            _ => None,
        };
        if let Some(i) = ident {
            defined.insert(i.to_string());
        }
    }
    let mut names = Names {
        module: &module,
        children,
        paths: Vec::new(),
        uses: Vec::new(),
    };
    names.visit_file(&file);
    let mut named = Vec::new();
    let mut reexports = Vec::new();
    // A path through a name a `use` brought in (`use crate::physical; physical::solve()`).
    let aliases: BTreeMap<&str, Vec<String>> = names
        .uses
        .iter()
        .filter(|(_, name, _)| name != "*")
        .filter_map(|(_, name, segs)| Some((name.as_str(), names.absolute(segs)?)))
        .collect();
    for (_, segs) in &names.paths {
        let through_use = || {
            let mut p = aliases.get(segs.first()?.as_str())?.clone();
            p.extend(segs[1..].iter().cloned());
            Some(p)
        };
        if let Some(a) = names.absolute(segs).or_else(through_use) {
            named.push(a);
        }
    }
    for (public, name, segs) in &names.uses {
        if let Some(a) = names.absolute(segs) {
            if *public {
                reexports.push((name.clone(), a.clone()));
            }
            named.push(a);
        }
    }
    Unit {
        rel: rel.to_string(),
        module,
        bin,
        named,
        reexports,
        defined,
    }
}

/// The parsed crate: every file by (crate, module path).
struct Crate {
    units: Vec<Unit>,
    by_module: BTreeMap<(bool, Vec<String>), usize>,
}

impl Crate {
    fn new(files: &[(String, String)]) -> Self {
        let units: Vec<Unit> = files.iter().map(|(r, t)| parse_unit(r, t)).collect();
        let by_module = units
            .iter()
            .enumerate()
            .map(|(i, u)| ((u.bin, u.module.clone()), i))
            .collect();
        Self { units, by_module }
    }

    /// The file that defines what `path` names (in the library when `lib`): the deepest module
    /// file on the path, followed through its re-exports.
    fn resolve(&self, bin: bool, path: &[String], depth: usize) -> Option<usize> {
        let mut found = None;
        for n in (0..=path.len()).rev() {
            if let Some(&i) = self.by_module.get(&(bin, path[..n].to_vec())) {
                found = Some((i, n));
                break;
            }
        }
        let (i, n) = found?;
        let Some(name) = path.get(n) else {
            return Some(i);
        };
        let u = &self.units[i];
        if depth > 4 || u.defined.contains(name) {
            return Some(i);
        }
        for (exported, target) in &u.reexports {
            if exported == name {
                let mut t = target.clone();
                t.extend(path[n + 1..].iter().cloned());
                return self.resolve(false, &t, depth + 1).or(Some(i));
            }
        }
        for (exported, target) in &u.reexports {
            if exported == "*" {
                let mut t = target.clone();
                t.extend(path[n..].iter().cloned());
                if let Some(j) = self.resolve(false, &t, depth + 1)
                    && self.units[j].defined.contains(name)
                {
                    return Some(j);
                }
            }
        }
        Some(i)
    }

    /// The crate a unit's absolute paths live in: the binary's own paths are `crate::cli::…`,
    /// its `railyard::…` paths are the library's.
    fn crate_of(&self, u: &Unit, path: &[String]) -> bool {
        u.bin && path.first().is_some_and(|p| p == "cli" || p == "main")
    }
}

/// Stage order and arrows through the crate root, for every library file but `lib.rs`.
fn stage_violations(c: &Crate) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let root = c.by_module.get(&(false, Vec::new())).map(|&i| &c.units[i]);
    let mut bad = Vec::new();
    for u in c.units.iter().filter(|u| !u.bin && !u.module.is_empty()) {
        let top = u.module[0].as_str();
        let Some(may) = allowed.get(top) else {
            bad.push(format!("src/{top} is not in the stage table: add it"));
            continue;
        };
        for p in &u.named {
            let Some(first) = p.first().map(String::as_str) else {
                continue;
            };
            if first == top || may.contains(&first) {
                continue;
            }
            let is_module = allowed.contains_key(first);
            let from_root = root.is_some_and(|r| r.defined.contains(first)) && !is_module;
            if from_root && EDGES.contains(&top) && ROOT_FOR_EDGES.contains(&first) {
                continue;
            }
            if is_module || from_root {
                let why = if from_root {
                    "an arrow back through lib.rs"
                } else {
                    "a stage it may not name"
                };
                bad.push(format!("{}: crate::{} ({why})", u.rel, p.join("::")));
            }
        }
    }
    bad.sort();
    bad.dedup();
    bad
}

/// `pub use` of another top-level module's items.
fn shims(c: &Crate) -> Vec<String> {
    let mut bad = Vec::new();
    for u in c.units.iter().filter(|u| !u.bin && !u.module.is_empty()) {
        for (_, target) in &u.reexports {
            if target.first() != u.module.first() {
                bad.push(format!(
                    "{}: re-exports crate::{}",
                    u.rel,
                    target.join("::")
                ));
            }
        }
    }
    bad
}

/// The stages' entry points: only the pipeline (`src/lib.rs`) runs a stage, so no consumer of
/// the `Design` runs one again (a second physical solve, say) behind its back.
const STAGE_ENTRIES: &[[&str; 2]] = &[
    ["spec", "parse"],
    ["topology", "build"],
    ["physical", "solve"],
    ["addressing", "allocate"],
    ["tenancy", "plan"],
    ["intent", "build"],
];

/// A library file other than `lib.rs` and the stage itself that runs a stage.
fn stage_runs(c: &Crate) -> Vec<String> {
    let mut bad = Vec::new();
    for u in c.units.iter().filter(|u| !u.bin && !u.module.is_empty()) {
        for p in &u.named {
            let Some(entry) = STAGE_ENTRIES
                .iter()
                .find(|e| p.len() == 2 && p[0] == e[0] && p[1] == e[1])
            else {
                continue;
            };
            if u.module[0] != entry[0] {
                bad.push(format!("{}: crate::{}", u.rel, p.join("::")));
            }
        }
    }
    bad.sort();
    bad.dedup();
    bad
}

/// Names that say "a position in another stage's list": what typed ids (`DeviceId`, `LinkId`)
/// replace once a value leaves `topology`.
const POSITION_NAMES: &[&str] = &[
    "device",
    "link",
    "cable",
    "position",
    "link_index",
    "device_index",
];

fn is_integer(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    p.path.get_ident().is_some_and(|i| {
        ["usize", "u64", "u32", "u16", "isize", "i64", "i32"].contains(&i.to_string().as_str())
    })
}

/// Public fields and parameters of a stage's public functions, outside `topology` (which hands
/// the ids out), that carry a device or cable as a bare integer position.
fn position_keys(rel: &str, text: &str) -> Vec<String> {
    struct Keys<'a> {
        rel: &'a str,
        out: Vec<String>,
    }
    impl<'ast> Visit<'ast> for Keys<'_> {
        fn visit_item(&mut self, i: &'ast syn::Item) {
            if !test_only_item(i) {
                syn::visit::visit_item(self, i);
            }
        }
        fn visit_field(&mut self, f: &'ast syn::Field) {
            let public = matches!(f.vis, syn::Visibility::Public(_));
            if let Some(name) = &f.ident
                && public
                && is_integer(&f.ty)
                && POSITION_NAMES.contains(&name.to_string().as_str())
            {
                let line = name.span().start().line;
                self.out.push(format!("{}:{line} field `{name}`", self.rel));
            }
            syn::visit::visit_field(self, f);
        }
        fn visit_signature(&mut self, sig: &'ast syn::Signature) {
            for input in &sig.inputs {
                if let syn::FnArg::Typed(t) = input
                    && let syn::Pat::Ident(id) = &*t.pat
                    && is_integer(&t.ty)
                    && POSITION_NAMES.contains(&id.ident.to_string().as_str())
                {
                    let line = id.ident.span().start().line;
                    self.out.push(format!(
                        "{}:{line} parameter `{}` of {}",
                        self.rel, id.ident, sig.ident
                    ));
                }
            }
            syn::visit::visit_signature(self, sig);
        }
    }
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut k = Keys {
        rel,
        out: Vec::new(),
    };
    k.visit_file(&file);
    k.out
}

/// The library's stage files (not the edges, not `topology`, which hands the ids out).
fn stage_files() -> Vec<(String, String)> {
    const NOT_STAGES: &[&str] = &[
        "src/lib.rs",
        "src/main.rs",
        "src/cli/",
        "src/lab/",
        "src/push/",
        "src/cabling/",
        "src/capture/",
        "src/topology/",
    ];
    read(&["src"])
        .into_iter()
        .filter(|(rel, _)| !NOT_STAGES.iter().any(|n| rel.starts_with(n)))
        .collect()
}

/// Groups of files that name each other, directly or around a loop.
fn cycles(c: &Crate) -> Vec<Vec<String>> {
    let n = c.units.len();
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for (i, u) in c.units.iter().enumerate() {
        for p in &u.named {
            let bin = c.crate_of(u, p);
            let Some(j) = c.resolve(bin, p, 0) else {
                continue;
            };
            let t = &c.units[j];
            let ancestor = t.bin == u.bin && u.module.starts_with(&t.module);
            if j != i && !ancestor {
                edges[i].insert(j);
            }
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|g| g.len() > 1)
        .map(|g| g.into_iter().map(|i| c.units[i].rel.clone()).collect())
        .collect()
}

/// Tarjan's strongly connected components.
fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            group.sort();
            s.out.push(group);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// Functions (free, methods, trait defaults, nested) longer than [`MAX_FN_LINES`], as
/// `file:line name (N lines)`: from the `fn` keyword to the closing brace.
fn long_functions(rel: &str, text: &str) -> Vec<String> {
    struct Long<'a> {
        rel: &'a str,
        out: Vec<String>,
    }
    impl Long<'_> {
        fn check(&mut self, sig: &syn::Signature, block: &syn::Block) {
            let start = sig.fn_token.span().start().line;
            let end = block.brace_token.span.close().end().line;
            let lines = end + 1 - start;
            if lines > MAX_FN_LINES {
                self.out.push(format!(
                    "{}:{start} {} ({lines} lines)",
                    self.rel, sig.ident
                ));
            }
        }
    }
    impl<'ast> Visit<'ast> for Long<'_> {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.check(&f.sig, &f.block);
            syn::visit::visit_item_fn(self, f);
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.check(&f.sig, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
        fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
            if let Some(b) = &f.default {
                self.check(&f.sig, b);
            }
            syn::visit::visit_trait_item_fn(self, f);
        }
    }
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut l = Long {
        rel,
        out: Vec::new(),
    };
    l.visit_file(&file);
    l.out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `(path relative to the repository, text)` of every `.rs` file under `dirs`.
fn read(dirs: &[&str]) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in dirs {
        rust_files(&root.join(d), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).expect("under the repository");
            let text = std::fs::read_to_string(&p).expect("readable");
            (rel.to_string_lossy().replace('\\', "/"), text)
        })
        .collect()
}

fn src() -> Crate {
    let files = read(&["src"]);
    assert!(files.len() > 100, "only {} files", files.len());
    Crate::new(&files)
}

#[test]
fn every_stage_names_only_earlier_stages_and_nothing_of_lib_rs() {
    let bad = stage_violations(&src());
    assert!(bad.is_empty(), "stage order broken:\n{}", bad.join("\n"));
}

#[test]
fn no_module_re_exports_another_modules_items() {
    let bad = shims(&src());
    assert!(bad.is_empty(), "re-export shims:\n{}", bad.join("\n"));
}

#[test]
fn no_two_files_name_each_other() {
    let groups = cycles(&src());
    let text: Vec<String> = groups.iter().map(|g| g.join(" ↔ ")).collect();
    assert!(
        groups.is_empty(),
        "import cycles between files:\n{}",
        text.join("\n")
    );
}

#[test]
fn no_function_is_longer_than_120_lines() {
    let files = read(&["src", "tests", "benches"]);
    let long: Vec<String> = files
        .iter()
        .flat_map(|(rel, text)| long_functions(rel, text))
        .collect();
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn only_the_pipeline_runs_a_stage() {
    let bad = stage_runs(&src());
    assert!(
        bad.is_empty(),
        "a stage run outside lib.rs:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_device_or_cable_crosses_a_stage_as_a_bare_position() {
    let bad: Vec<String> = stage_files()
        .iter()
        .flat_map(|(rel, text)| position_keys(rel, text))
        .collect();
    assert!(
        bad.is_empty(),
        "positions used as keys (use topology's DeviceId, LinkId, PerDevice, PerLink):\n{}",
        bad.join("\n")
    );
}

// Each check fails on what it exists for.

fn mini(files: &[(&str, &str)]) -> Crate {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    Crate::new(&files)
}

#[test]
fn a_spec_import_in_render_or_a_root_item_in_a_stage_fails() {
    let c = mini(&[
        (
            "src/lib.rs",
            "pub mod render; pub mod lab; pub fn compile() {} pub struct Compiled;",
        ),
        (
            "src/render/mod.rs",
            "use crate::spec::ClusterSpec; fn f() { crate::compile(); }",
        ),
        (
            "src/lab/mod.rs",
            "use crate::{Compiled, intent::X}; fn g() { crate::compile(); }",
        ),
    ]);
    let bad = stage_violations(&c);
    assert!(
        bad.iter()
            .any(|b| b.contains("render/mod.rs: crate::spec::ClusterSpec")),
        "{bad:?}"
    );
    assert!(
        bad.iter()
            .any(|b| b.contains("render/mod.rs: crate::compile (an arrow back through lib.rs)")),
        "{bad:?}"
    );
    // The edges may call the pipeline.
    assert!(!bad.iter().any(|b| b.contains("lab/")), "{bad:?}");
}

#[test]
fn a_re_export_of_another_module_fails() {
    let c = mini(&[
        ("src/lib.rs", "pub mod intent; pub mod tenancy;"),
        (
            "src/intent/plan.rs",
            "pub use crate::tenancy::{Tenant, TenantPlan};",
        ),
        (
            "src/tenancy/mod.rs",
            "pub struct Tenant; pub struct TenantPlan; mod x; pub use x::Y;",
        ),
        ("src/tenancy/x.rs", "pub struct Y;"),
    ]);
    let bad = shims(&c);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad[0].starts_with("src/intent/plan.rs: re-exports crate::tenancy::Tenant"));
}

#[test]
fn two_files_naming_each_other_fail_also_through_their_parents_re_export() {
    let c = mini(&[
        ("src/lib.rs", "pub mod lab;"),
        (
            "src/lab/mod.rs",
            "mod frr; mod plan; mod up; pub use plan::Plan; pub use frr::*;",
        ),
        ("src/lab/frr.rs", "use super::Plan; pub fn daemons() {}"),
        (
            "src/lab/plan.rs",
            "pub struct Plan; fn f() { super::frr::daemons(); }",
        ),
        // A child naming its parent, and the parent naming the child, is no cycle.
        (
            "src/lab/up.rs",
            "use super::Plan; fn g() { crate::lab::plan::Plan; }",
        ),
    ]);
    let groups = cycles(&c);
    assert_eq!(groups, [vec!["src/lab/frr.rs", "src/lab/plan.rs"]]);
}

#[test]
fn a_function_of_121_lines_fails_and_one_of_120_passes() {
    let body = |n: usize| format!("fn f() {{\n{}}}\n", "    let _x = 1;\n".repeat(n - 2));
    assert!(long_functions("a.rs", &body(120)).is_empty());
    assert_eq!(long_functions("a.rs", &body(121)), ["a.rs:1 f (121 lines)"]);
    let method = format!(
        "struct S;\nimpl S {{\n{}}}\n",
        body(130).replace("fn f", "    fn m")
    );
    assert_eq!(long_functions("b.rs", &method), ["b.rs:3 m (130 lines)"]);
}

#[test]
fn acceptance_naming_artifacts_fails() {
    let c = mini(&[
        (
            "src/lib.rs",
            "pub mod acceptance; pub mod artifacts; pub mod design;",
        ),
        (
            "src/acceptance/mod.rs",
            "use crate::design::Design; fn f(d: &Design) { crate::artifacts::nccl_env(d); }",
        ),
    ]);
    let bad = stage_violations(&c);
    assert_eq!(
        bad,
        ["src/acceptance/mod.rs: crate::artifacts::nccl_env (a stage it may not name)"]
    );
}

#[test]
fn an_export_that_solves_the_physical_layer_again_fails() {
    let c = mini(&[
        (
            "src/lib.rs",
            "pub mod export; pub mod artifacts; pub mod physical; fn p() { physical::solve(); }",
        ),
        (
            "src/export/netbox.rs",
            "fn f() { crate::physical::solve(); }",
        ),
        (
            "src/artifacts/mod.rs",
            "use crate::physical; fn g() { physical::solve(); }",
        ),
        (
            "src/physical/mod.rs",
            "pub fn solve() {} fn h() { crate::physical::solve(); }",
        ),
    ]);
    assert_eq!(
        stage_runs(&c),
        [
            "src/artifacts/mod.rs: crate::physical::solve",
            "src/export/netbox.rs: crate::physical::solve",
        ]
    );
}

#[test]
fn a_device_or_link_position_in_a_public_field_or_parameter_fails() {
    let text = "pub struct ModuleUse { pub device: usize, pub cage: u32, part: u32 }\n\
                pub struct Ok { pub device: DeviceId }\n\
                pub fn link(&self, i: LinkId) {}\n\
                pub fn cord_of(&self, link: usize) {}\n\
                #[cfg(test)] mod tests { pub struct T { pub link: usize } }\n";
    assert_eq!(
        position_keys("src/physical/mod.rs", text),
        [
            "src/physical/mod.rs:1 field `device`",
            "src/physical/mod.rs:4 parameter `link` of cord_of",
        ]
    );
}

#[test]
fn change_naming_push_fails() {
    let c = mini(&[
        (
            "src/lib.rs",
            "pub mod change; pub mod push; pub mod meaning;",
        ),
        (
            "src/change/configs.rs",
            "use crate::meaning::canonical; use crate::push::drivers::frr; fn f() {}",
        ),
    ]);
    assert_eq!(
        stage_violations(&c),
        ["src/change/configs.rs: crate::push::drivers::frr (a stage it may not name)"]
    );
}
