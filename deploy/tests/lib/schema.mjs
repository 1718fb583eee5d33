// Validates rendered Kubernetes objects against the OpenAPI schemas of the kubernetes-models
// packages (core, cert-manager, prometheus-operator), and rejects fields the schema does not
// know. The packages' validators check types, enums and required fields but accept unknown keys
// (as the apiserver's non-strict decoding would: silently dropped, so a typo'd
// `readinesProbe` is a probe that never exists). The unknown-field walk reads the same models'
// TypeScript declarations with the TypeScript compiler and checks every key, at every depth,
// against the declared properties.
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

// The models for an apiVersion: which package and folder hold its kinds.
function modelLocation(apiVersion) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  if (group === "cert-manager.io")
    return { pkg: "@kubernetes-models/cert-manager", dir: `${group}/${version}` };
  if (group === "monitoring.coreos.com")
    return { pkg: "@kubernetes-models/prometheus-operator", dir: `${group}/${version}` };
  return { pkg: "kubernetes-models", dir: group ? `${group}/${version}` : version };
}

// kustomize wraps the base64 it writes (Secret data, and caBundle copied from it) at 70 columns.
// The apiserver decodes these []byte fields with Go's base64 decoder, which ignores newlines, but
// the schema's format "byte" does not: unwrap them before validating, as the apiserver would.
function withByteFieldsUnwrapped(obj) {
  const copy = structuredClone(obj);
  const unwrap = (map, keys = Object.keys(map ?? {})) => {
    for (const k of keys) if (typeof map?.[k] === "string") map[k] = map[k].replace(/[\r\n]/g, "");
  };
  if (copy.kind === "Secret") unwrap(copy.data);
  if (copy.kind === "ConfigMap") unwrap(copy.binaryData);
  for (const w of copy.webhooks ?? []) unwrap(w.clientConfig, ["caBundle"]);
  return copy;
}

export class SchemaValidator {
  constructor(toolsDir) {
    this.modules = path.join(toolsDir, "node_modules");
    this.require = createRequire(path.join(this.modules, "noop.js"));
    this.ts = this.require("typescript");
    this.types = new Map(); // "apiVersion/kind" -> { checker, type }
  }

  files(obj) {
    const { pkg, dir } = modelLocation(obj.apiVersion ?? "");
    const base = path.join(this.modules, pkg, dir, String(obj.kind));
    return { js: `${base}.js`, dts: `${base}.d.ts` };
  }

  // Errors of the package's schema validator (types, enums, required fields).
  async schemaErrors(obj) {
    const { js } = this.files(obj);
    let mod;
    try {
      mod = await import(pathToFileURL(js).href);
    } catch {
      return [`no schema for ${obj.apiVersion} ${obj.kind}`];
    }
    const Model = mod[obj.kind] ?? mod.default?.[obj.kind];
    if (!Model) return [`no model ${obj.kind} in ${js}`];
    try {
      new Model(withByteFieldsUnwrapped(obj)).validate();
      return [];
    } catch (e) {
      return [String(e.message ?? e)];
    }
  }

  // Compiles the declarations of every kind in `objects` as one program (one compile of the
  // shared model types instead of one per kind).
  prepare(objects) {
    const ts = this.ts;
    const roots = [...new Set(objects.map((o) => this.files(o).dts))];
    this.program = ts.createProgram(roots, {
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
    });
    this.checker = this.program.getTypeChecker();
    this.types.clear();
  }

  // The declared type of the kind: interface I<Kind> of its .d.ts.
  declaredType(obj) {
    const key = `${obj.apiVersion}/${obj.kind}`;
    if (this.types.has(key)) return this.types.get(key);
    const ts = this.ts;
    const { dts } = this.files(obj);
    if (!this.program?.getSourceFile(dts)) this.prepare([obj]);
    const checker = this.checker;
    const source = this.program.getSourceFile(dts);
    let found = null;
    source?.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node) && node.name.text === `I${obj.kind}`)
        found = { checker, type: checker.getTypeAtLocation(node.name), node };
    });
    this.types.set(key, found);
    return found;
  }

  // Every key the declared type does not have, as JSON paths (e.g. spec.template.spec.foo).
  unknownFields(obj) {
    const declared = this.declaredType(obj);
    if (!declared) return [`no type declaration for ${obj.apiVersion} ${obj.kind}`];
    const out = [];
    this.walk(obj, declared.type, "", declared, out);
    return out;
  }

  walk(value, type, where, declared, out) {
    const ts = this.ts;
    const { checker, node } = declared;
    if (value === null || typeof value !== "object") return;
    type = checker.getNonNullableType(type);
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    // Unions (e.g. IntOrString, or object | array): walk with the members that fit the value.
    const members = type.isUnion() ? type.types : [type];
    if (Array.isArray(value)) {
      const element = members
        .map((m) => checker.getIndexTypeOfType(m, ts.IndexKind.Number))
        .find(Boolean);
      if (!element) return; // not declared as an array: the schema validator reports it
      value.forEach((v, i) => this.walk(v, element, `${where}[${i}]`, declared, out));
      return;
    }
    const objects = members.filter((m) => m.flags & ts.TypeFlags.Object);
    if (objects.length === 0) return; // a primitive in the schema: the validator reports it
    for (const [key, v] of Object.entries(value)) {
      const at = where ? `${where}.${key}` : key;
      let propType = null;
      for (const m of objects) {
        const prop = checker.getPropertyOfType(m, key);
        if (prop) {
          propType = checker.getTypeOfSymbolAtLocation(prop, node);
          break;
        }
        const index = checker.getIndexTypeOfType(m, ts.IndexKind.String);
        if (index) {
          propType = index;
          break;
        }
      }
      if (!propType) {
        out.push(at);
        continue;
      }
      this.walk(v, propType, at, declared, out);
    }
  }

  // All problems of one object, each prefixed with the object's kind and name.
  async problems(obj) {
    const name = `${obj.kind ?? "?"}/${obj.metadata?.name ?? "?"}`;
    const schema = await this.schemaErrors(obj);
    const unknown = schema.some((e) => e.startsWith("no ")) ? [] : this.unknownFields(obj);
    return [
      ...schema.map((e) => `${name}: ${e}`),
      ...unknown.map((f) => `${name}: unknown field ${f}`),
    ];
  }
}
