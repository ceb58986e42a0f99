// Types of the ES module entry for Node: the same surface as the CommonJS build it re-exports.
export * from "./@module@.js";
