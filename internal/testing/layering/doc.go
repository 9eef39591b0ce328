// Package layering holds no code: its test states the module's import rules and fails when a
// change breaks one.
//
//   - No production package imports a test harness (internal/testing/..., or <pkg>/<pkg>test beside
//     the package it runs: service/servicetest, pdfpages/pdfpagestest).
//     Production is every package outside internal/testing/, bench/, integration/ and the
//     generators (contracts/internal/...).
//   - No package under internal/ imports service: the helpers there sit below the composition root.
//   - The main module links no provider SDK; the decoding checks against the SDKs live in the
//     nested module sdkcheck/.
package layering
