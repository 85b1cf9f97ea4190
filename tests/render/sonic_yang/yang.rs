//! A reader for the SONiC YANG models, enough to map config_db tables onto them the way
//! sonic-buildimage `src/sonic-yang-mgmt/sonic_yang_ext.py` does: every module whose first
//! top-level container is named after the module holds one container per CONFIG_DB table; a
//! table's container holds the lists (keys split from the CONFIG_DB key on `|`), containers and
//! leaves its entries translate to. `uses` is expanded (local or imported groupings) and
//! `choice`/`case` are flattened, as libyang's compiled schema does.

use std::collections::BTreeMap;
use std::path::Path;

/// One YANG statement: keyword, argument, sub-statements.
#[derive(Clone, Debug)]
pub struct Stmt {
    pub keyword: String,
    pub arg: String,
    pub children: Vec<Stmt>,
}

impl Stmt {
    fn child(&self, keyword: &str) -> Option<&Stmt> {
        self.children.iter().find(|c| c.keyword == keyword)
    }
}

#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    Open,
    Close,
    Semi,
}

fn tokens(text: &str) -> Result<Vec<Tok>, String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..]
                .find("*/")
                .ok_or("unterminated block comment")?;
            i += end + 4;
        } else if c == b'{' {
            out.push(Tok::Open);
            i += 1;
        } else if c == b'}' {
            out.push(Tok::Close);
            i += 1;
        } else if c == b';' {
            out.push(Tok::Semi);
            i += 1;
        } else if c == b'"' || c == b'\'' {
            // A quoted string, possibly concatenated with `+` to further quoted strings.
            let mut s = String::new();
            loop {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    if q == b'"' && b[i] == b'\\' && i + 1 < b.len() {
                        s.push(match b[i + 1] {
                            b'n' => '\n',
                            b't' => '\t',
                            other => other as char,
                        });
                        i += 2;
                        continue;
                    }
                    let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
                    s.push_str(&text[i..i + ch_len]);
                    i += ch_len;
                }
                if i >= b.len() {
                    return Err("unterminated string".into());
                }
                i += 1;
                let mut j = i;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j < b.len() && b[j] == b'+' {
                    j += 1;
                    while j < b.len() && b[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
                        i = j;
                        continue;
                    }
                }
                break;
            }
            out.push(Tok::Word(s));
        } else {
            let start = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'{' | b'}' | b';')
            {
                i += 1;
            }
            out.push(Tok::Word(text[start..i].to_string()));
        }
    }
    Ok(out)
}

fn statements(toks: &[Tok], pos: &mut usize) -> Result<Vec<Stmt>, String> {
    let mut out = Vec::new();
    while *pos < toks.len() {
        match &toks[*pos] {
            Tok::Close => return Ok(out),
            Tok::Word(keyword) => {
                *pos += 1;
                let mut arg = String::new();
                if let Some(Tok::Word(a)) = toks.get(*pos) {
                    arg = a.clone();
                    *pos += 1;
                }
                let children = match toks.get(*pos) {
                    Some(Tok::Semi) => {
                        *pos += 1;
                        Vec::new()
                    }
                    Some(Tok::Open) => {
                        *pos += 1;
                        let c = statements(toks, pos)?;
                        if toks.get(*pos) != Some(&Tok::Close) {
                            return Err(format!("`{keyword} {arg}` is not closed"));
                        }
                        *pos += 1;
                        c
                    }
                    other => return Err(format!("after `{keyword} {arg}`: {other:?}")),
                };
                out.push(Stmt {
                    keyword: keyword.clone(),
                    arg,
                    children,
                });
            }
            other => return Err(format!("unexpected {other:?}")),
        }
    }
    Ok(out)
}

pub fn parse(text: &str) -> Result<Stmt, String> {
    let toks = tokens(text)?;
    let mut pos = 0;
    let mut top = statements(&toks, &mut pos)?;
    if top.len() != 1 || top[0].keyword != "module" {
        return Err("not one `module` statement".into());
    }
    Ok(top.remove(0))
}

/// A data node of the compiled schema.
#[derive(Clone, Debug)]
pub enum Node {
    Container {
        name: String,
        children: Vec<Node>,
    },
    List {
        name: String,
        keys: Vec<String>,
        children: Vec<Node>,
    },
    Leaf {
        name: String,
    },
    LeafList {
        name: String,
    },
}

impl Node {
    pub fn name(&self) -> &str {
        match self {
            Node::Container { name, .. }
            | Node::List { name, .. }
            | Node::Leaf { name }
            | Node::LeafList { name } => name,
        }
    }
}

/// One CONFIG_DB table as the models define it.
#[derive(Clone, Debug)]
pub struct Table {
    pub module: String,
    pub namespace: String,
    /// The module's top-level container (named after the module).
    pub top: String,
    /// The table's container and what is under it.
    pub container: Node,
}

/// Every module of a directory: name → statement.
pub struct Models {
    modules: BTreeMap<String, Stmt>,
}

impl Models {
    pub fn load(dir: &Path) -> Result<Self, String> {
        let mut modules = BTreeMap::new();
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yang"))
            .collect();
        entries.sort();
        for p in entries {
            let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let m = parse(&text).map_err(|e| format!("{}: {e}", p.display()))?;
            modules.insert(m.arg.clone(), m);
        }
        Ok(Self { modules })
    }

    /// Files of the modules that define tables (the ones that must be implemented).
    pub fn table_modules(&self) -> Vec<String> {
        self.modules
            .iter()
            .filter(|(name, m)| {
                m.children
                    .iter()
                    .any(|c| c.keyword == "container" && &c.arg == *name)
            })
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Every CONFIG_DB table, by name.
    pub fn tables(&self) -> Result<BTreeMap<String, Table>, String> {
        let mut out = BTreeMap::new();
        for (name, m) in &self.modules {
            let Some(top) = m.children.iter().find(|c| c.keyword == "container") else {
                continue;
            };
            if &top.arg != name {
                continue;
            }
            let ns = m
                .child("namespace")
                .map(|n| n.arg.clone())
                .ok_or_else(|| format!("{name}: no namespace"))?;
            for t in self.data_children(name, &top.children)? {
                if let Node::Container { name: table, .. } = &t {
                    out.insert(
                        table.clone(),
                        Table {
                            module: name.clone(),
                            namespace: ns.clone(),
                            top: top.arg.clone(),
                            container: t.clone(),
                        },
                    );
                }
            }
        }
        Ok(out)
    }

    /// The data nodes among `stmts` of module `module`, with `uses` expanded and `choice`/`case`
    /// flattened.
    fn data_children(&self, module: &str, stmts: &[Stmt]) -> Result<Vec<Node>, String> {
        let mut out = Vec::new();
        for s in stmts {
            match s.keyword.as_str() {
                "container" => out.push(Node::Container {
                    name: s.arg.clone(),
                    children: self.data_children(module, &s.children)?,
                }),
                "list" => out.push(Node::List {
                    name: s.arg.clone(),
                    keys: s
                        .child("key")
                        .map(|k| k.arg.split_whitespace().map(str::to_string).collect())
                        .unwrap_or_default(),
                    children: self.data_children(module, &s.children)?,
                }),
                "leaf" => out.push(Node::Leaf {
                    name: s.arg.clone(),
                }),
                "leaf-list" => out.push(Node::LeafList {
                    name: s.arg.clone(),
                }),
                "choice" | "case" => out.extend(self.data_children(module, &s.children)?),
                "uses" => {
                    let (m, g) = self.grouping(module, &s.arg)?;
                    out.extend(self.data_children(&m, &g.children)?);
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The grouping `prefix:name` (or a local `name`) seen from `module`.
    fn grouping(&self, module: &str, reference: &str) -> Result<(String, Stmt), String> {
        let m = &self.modules[module];
        let (target, name) = match reference.split_once(':') {
            Some((prefix, name)) if m.child("prefix").is_some_and(|p| p.arg == prefix) => {
                (module.to_string(), name)
            }
            Some((prefix, name)) => {
                let imported = m
                    .children
                    .iter()
                    .filter(|c| c.keyword == "import")
                    .find(|c| c.child("prefix").is_some_and(|p| p.arg == prefix))
                    .map(|c| c.arg.clone())
                    .ok_or_else(|| format!("{module}: unknown prefix in `uses {reference}`"))?;
                (imported, name)
            }
            None => (module.to_string(), reference),
        };
        let tm = self
            .modules
            .get(&target)
            .ok_or_else(|| format!("{module}: `uses {reference}`: module {target} not loaded"))?;
        find_grouping(tm, name)
            .map(|g| (target.clone(), g.clone()))
            .ok_or_else(|| format!("{module}: no grouping `{reference}`"))
    }
}

fn find_grouping<'a>(s: &'a Stmt, name: &str) -> Option<&'a Stmt> {
    for c in &s.children {
        if c.keyword == "grouping" && c.arg == name {
            return Some(c);
        }
        if let Some(g) = find_grouping(c, name) {
            return Some(g);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_statements_strings_and_comments() {
        let m = parse(
            "module m { // c\n namespace \"urn:m\"; /* block */ container m { leaf a { type string { pattern '[^ ' + \"x\"; } } } }",
        )
        .unwrap();
        assert_eq!(m.arg, "m");
        let c = m.child("container").unwrap();
        let pattern = &c.children[0].children[0].children[0];
        assert_eq!(pattern.arg, "[^ x");
    }
}
