// The ES module entry for Node, one per module (scripts/build-wasm fills in the name). wasm-bindgen's
// nodejs build is CommonJS (it instantiates the .wasm synchronously at load), and Node exposes its
// `exports.name = …` assignments as named ESM exports.
export * from "./@module@.js";
