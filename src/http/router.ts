// Matches a method and path against route patterns such as `/users/{user_id:int}` (an integer
// segment) or `/users/{email}` (any one segment). Static segments win over parameters, and integer
// parameters over string ones, so both of those patterns can coexist. A last `{name:path}` takes
// the rest of the path, slashes included (Django's `<path:…>`), each segment URL-decoded.

export type PathParams = Record<string, string | number>;

interface Node<T> {
  statics: Map<string, Node<T>>;
  intParam?: { name: string; node: Node<T> };
  stringParam?: { name: string; node: Node<T> };
  pathParam?: { name: string; node: Node<T> };
  methods: Map<string, T>;
}

export type Match<T> =
  | { kind: 'found'; value: T; params: PathParams }
  | { kind: 'wrongMethod'; allowed: string[] }
  | { kind: 'notFound' };

const newNode = <T>(): Node<T> => ({ statics: new Map(), methods: new Map() });
const paramSegment = /^\{([a-z_]+)(:int|:path)?\}$/;

export class Router<T> {
  private readonly root: Node<T> = newNode();
  /** The nodes of patterns without parameters, by the pattern itself: a path written as its
   * pattern is (static segments win) found without walking the tree. */
  private readonly exact = new Map<string, Node<T>>();

  add(method: string, pattern: string, value: T): void {
    if (/\{[a-z_]+:path\}./.test(pattern)) throw new Error(`${pattern}: a path parameter must come last`);
    let node = this.root;
    for (const segment of pattern.split('/').filter(Boolean)) {
      const param = paramSegment.exec(segment);
      if (!param) {
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = newNode()));
        node = next;
        continue;
      }
      const slot = param[2] === ':int' ? 'intParam' : param[2] === ':path' ? 'pathParam' : 'stringParam';
      const existing = node[slot];
      if (existing && existing.name !== param[1]) throw new Error(`${pattern}: parameter {${param[1]}} clashes with {${existing.name}}`);
      node = (node[slot] ??= { name: param[1]!, node: newNode() }).node;
    }
    if (node.methods.has(method)) throw new Error(`duplicate route ${method} ${pattern}`);
    node.methods.set(method, value);
    if (!pattern.includes('{')) this.exact.set(pattern, node);
  }

  match(method: string, path: string): Match<T> {
    const params: PathParams = {};
    const node = this.exact.get(path) ?? this.walk(this.root, path.split('/').filter(Boolean), 0, params);
    if (!node || node.methods.size === 0) return { kind: 'notFound' };
    const value = node.methods.get(method);
    return value === undefined ? { kind: 'wrongMethod', allowed: [...node.methods.keys()] } : { kind: 'found', value, params };
  }

  private walk(node: Node<T>, segments: string[], index: number, params: PathParams): Node<T> | undefined {
    if (index === segments.length) return node;
    const segment = segments[index]!;
    const fixed = node.statics.get(segment);
    const viaStatic = fixed && this.walk(fixed, segments, index + 1, params);
    if (viaStatic) return viaStatic;
    if (node.intParam && /^\d{1,15}$/.test(segment)) {
      const found = this.walk(node.intParam.node, segments, index + 1, params);
      if (found) {
        params[node.intParam.name] = Number(segment);
        return found;
      }
    }
    if (node.stringParam) {
      const found = this.walk(node.stringParam.node, segments, index + 1, params);
      if (found) {
        params[node.stringParam.name] = safeDecode(segment);
        return found;
      }
    }
    if (node.pathParam && node.pathParam.node.methods.size > 0) {
      params[node.pathParam.name] = segments.slice(index).map(safeDecode).join('/');
      return node.pathParam.node;
    }
    return undefined;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
