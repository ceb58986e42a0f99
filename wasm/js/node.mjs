// The ES module entry for Node. wasm-bindgen's nodejs build is CommonJS (it instantiates the .wasm
// synchronously at load), and Node exposes its `exports.name = …` assignments as named ESM exports.
export * from "./pageai.js";
