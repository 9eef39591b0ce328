"""artifact_worker_client.contract_types (generated from the Go types by contracts/internal/contractgen)
follows the JSON Schemas in contracts/schema/: every top-level object and every $defs object is a
TypedDict with the same keys, the same required ones, and annotations that resolve."""

import glob
import json
import os
import typing
import unittest

import _env
from artifact_worker_client import contract_types

SCHEMAS = os.path.join(_env.PACKAGE_DIR, "..", "..", "contracts", "schema")

# Schema file -> TypedDict of its top-level object.
ROOTS = {
    "reply.json": "Reply",
    "get_artifact.request.json": "GetArtifactRequest",
    "get_artifact.result.json": "GetArtifactResult",
    "get_history_image.request.json": "GetHistoryImageRequest",
    "get_history_image.result.json": "GetHistoryImageResult",
    "file_written.request.json": "FileWrittenRequest",
    "file_written.result.json": "FileWrittenResult",
    "preprocess.request.json": "PreprocessRequest",
    "preprocess.result.json": "PreprocessResult",
    "metadata.request.json": "MetadataRequest",
    "metadata.result.json": "MetadataResult",
}
# $defs whose TypedDict has another name.
RENAMED = {"Error": "ErrorObject"}


def required_in_schema(node):
    """Keys the schema requires, or requires in one of its spellings (allOf/anyOf of required): a
    field another spelling may stand in for is optional in the TypedDict."""
    return set(node.get("required", []))


class ContractTypesTest(unittest.TestCase):
    def check(self, name, node):
        cls = getattr(contract_types, name, None)
        self.assertIsNotNone(cls, f"contract_types has no {name}")
        keys = set(cls.__required_keys__) | set(cls.__optional_keys__)
        self.assertEqual(keys, set(node["properties"]), f"{name}: keys")
        self.assertEqual(set(cls.__required_keys__), required_in_schema(node), f"{name}: required keys")

    def test_every_schema_object(self):
        files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SCHEMAS, "*.json")))
        self.assertEqual(files, sorted(ROOTS), "a schema file without a TypedDict, or the reverse")
        for file, root in ROOTS.items():
            with open(os.path.join(SCHEMAS, file), encoding="utf-8") as f:
                schema = json.load(f)
            with self.subTest(file):
                self.check(root, schema)
                for name, node in schema.get("$defs", {}).items():
                    self.check(RENAMED.get(name, name), node)

    def test_annotations_resolve(self):
        for name in contract_types.__all__:
            with self.subTest(name):
                typing.get_type_hints(getattr(contract_types, name))


if __name__ == "__main__":
    unittest.main()
