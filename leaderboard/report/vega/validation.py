"""A whole chart specification checked against the Vega-Lite schema (the tests' check of every
chart, :meth:`~leaderboard.report.vega.common.Spec.to_dict` with ``validate``)."""
from __future__ import annotations

from functools import lru_cache

from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema


def validate_spec(spec: dict) -> None:
    """Raise unless ``spec`` is a valid Vega-Lite specification (the check Altair's
    ``to_dict(validate=True)`` makes), with Altair's message.

    The validator is Altair's own (same class, format checker and reference registry), built once
    (:func:`_validator`) instead of on every call: Altair copies the whole Vega-Lite schema for
    each validation, a fifth of a second a chart (issue 27). An invalid spec is raised through
    Altair's function, for its message.

    Examples
    --------
    >>> validate_spec({"mark": "point", "data": {"values": [{"a": 1}]}})
    >>> import jsonschema
    >>> try:
    ...     validate_spec({"mark": "no such mark"})
    ... except jsonschema.ValidationError as error:
    ...     print(error.instance)
    no such mark
    """
    validator = _validator()
    if validator is None or next(validator.iter_errors(spec), None) is not None:
        schema = load_schema()
        validate_jsonschema(spec, schema, rootschema=schema)
        raise AssertionError("the cached validator and Altair's disagree")  # pragma: no cover


@lru_cache(maxsize=1)
def _validator():
    """Altair's validator for the Vega-Lite schema (``altair.utils.schemapi._get_errors_from_spec``
    builds this one each call), or None where Altair resolves references without `referencing`."""
    import jsonschema
    from altair.utils import schemapi

    if not schemapi._use_referencing_library():
        return None
    schema = load_schema()
    url = schemapi._get_json_schema_draft_url(schema)
    cls = jsonschema.validators.validator_for({"$schema": url})
    kwargs = {"format_checker": cls.FORMAT_CHECKER} if hasattr(cls, "FORMAT_CHECKER") else {}
    return cls(schemapi._prepare_references_in_schema(schema),
               registry=schemapi._get_referencing_registry(schema, url), **kwargs)
