"""The suite as language-neutral data: `studcheck export --format json` and its total reader.

write.py turns loaded cases into JSON with the reference engine's golden transcript (played through
the harness's own Runner, in process); read.py turns that JSON back into the same `Case` objects.
The format is spec/export.md, its schema spec/schema/export.schema.json.
"""
