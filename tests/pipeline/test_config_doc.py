"""config/README.md is generated from the schema's descriptions and the config files' values."""

from pathlib import Path

from ensemble_repro import config_doc
from ensemble_repro.config import BASE_CONFIG, load_schema, load_yaml_file

REPO = Path(__file__).resolve().parents[2]


def test_committed_config_readme_is_the_generated_one():
    committed = (REPO / config_doc.README).read_text(encoding="utf-8")
    assert committed == config_doc.render_readme(REPO), (
        "config/README.md is not what the schema and config files generate: run "
        "`make config-readme` and commit the result"
    )


def test_every_key_has_a_schema_description():
    schema = load_schema(REPO / config_doc.SCHEMA)
    missing = config_doc.undescribed(schema, load_yaml_file(REPO / BASE_CONFIG))
    assert not missing, f"keys without a description in {config_doc.SCHEMA}: {missing}"


def test_overlay_values_are_listed_beside_the_default():
    schema = {
        "type": "object",
        "properties": {
            "jab": {
                "type": "object",
                "description": "a paper",
                "properties": {
                    "n_trials": {"type": "integer", "minimum": 1, "description": "trials"},
                    "ratios": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                        "description": "m/n <= 1 of QWYC*",
                    },
                    "rule": {"enum": ["a", "b"], "description": "a rule"},
                },
            }
        },
    }
    base = {"jab": {"n_trials": 10, "ratios": [0.5, 1.0], "rule": "a"}}
    text = config_doc.render(schema, base, {"quick": {"jab": {"n_trials": 3}}, "smoke": {}})
    assert "## `jab`\n\nA paper.\n" in text
    assert "- **`jab.n_trials`**: trials.\n  Integer >= 1. Default `10`; quick `3`.\n" in text
    assert "m/n <= 1 of QWYC\\*.\n  Non-empty list of number in (0, 1]. Default `[0.5, 1.0]`." in (
        text
    )
    assert "  One of `a`, `b`. Default `a`.\n" in text
