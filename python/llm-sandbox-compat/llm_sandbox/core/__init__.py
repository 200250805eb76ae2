"""llm-sandbox's `core` names that code imports: `core.config.SessionConfig` and
`core.session_base.BaseSession` (what every session class here is)."""
