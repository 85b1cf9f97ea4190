//! The escape of the line-oriented files railyard renders from templates (FRR, EOS and SONiC
//! routing configs, `nv-set.sh`, the node scripts and env files): those formats have no quoting
//! that could carry a line break, so a value holding one (or any control character) would become
//! a line of its own — a command in a root script, a statement in a switch config. The spec
//! boundary refuses such strings already (`model::ident`); this formatter refuses them again
//! where every template value is written, so a value that reaches a template some other way
//! fails the render with the template's name instead of injecting a line.

use minijinja::{Error, ErrorKind, Output, State, Value, escape_formatter};

/// minijinja formatter: values as minijinja writes them, unless a string holds a control
/// character, which fails the render.
pub fn formatter(out: &mut Output<'_>, state: &State<'_, '_>, value: &Value) -> Result<(), Error> {
    if let Some(s) = value.as_str()
        && let Some(c) = s.chars().find(|c| c.is_control())
    {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "a value holding the control character {} cannot be written into a line-oriented file: {:?}",
                c.escape_unicode(),
                s.chars().take(60).collect::<String>()
            ),
        ));
    }
    escape_formatter(out, state, value)
}

#[cfg(test)]
mod tests {
    use minijinja::{Environment, context};

    fn render(v: &str) -> Result<String, minijinja::Error> {
        let mut env = Environment::new();
        env.set_formatter(super::formatter);
        env.render_str("ip route {{ v }}", context! { v })
    }

    #[test]
    fn plain_values_are_written_as_they_are() {
        assert_eq!(
            render("10.0.0.0/8 swp1").unwrap(),
            "ip route 10.0.0.0/8 swp1"
        );
    }

    #[test]
    fn a_line_break_or_control_character_fails_the_render() {
        for v in ["a\nusername backdoor", "a\rb", "a\u{1b}[2J", "a\u{0}"] {
            let e = render(v).unwrap_err();
            assert!(e.to_string().contains("control character"), "{v:?}: {e}");
        }
    }
}
