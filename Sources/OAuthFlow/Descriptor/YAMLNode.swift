import Yams

/// One node of a ``YAMLTree``: a scalar, a mapping or a sequence.
package struct YAMLNode: Sendable {
    package let tree: YAMLTree
    let index: Int

    private var entry: YAMLTree.Entry { tree.entries[index] }

    public var kind: YAMLTree.Kind { entry.kind }
    /// The node's tag as ``YAMLTree`` stores it: cheaper to compare than ``tag``.
    var tagCode: YAMLTree.TagCode { entry.tag }
    /// The 1-based line where the node starts.
    public var line: Int { Int(entry.line) }
    /// The 1-based column where the node starts, counted in Unicode scalars.
    public var column: Int { Int(entry.column) }
    /// How a scalar was written; `plain` for collections.
    public var style: YAMLTree.Style { entry.style }
    /// The node's tag: for a scalar written without one, what YAML 1.1 makes of its text
    /// (`tag:yaml.org,2002:str`, `…:int`, `…:bool`, `…:null`, …).
    public var tag: Tag.Name {
        let code = entry.tag
        return code == .custom ? tree.customTags[Int32(index)] ?? .str : code.name
    }
    /// A scalar's text; nil for collections. Made from the tree's bytes at each call: compare with
    /// ``hasText(_:)`` where a comparison is all that is wanted.
    public var string: String? { tree.scalarText(index) }

    /// Whether this is a scalar whose text is `other`, compared byte for byte without making a `String`.
    public func hasText(_ other: String) -> Bool {
        var other = other
        return other.withUTF8 { tree.scalar(index, is: $0) }
    }

    /// `body` over a scalar's UTF-8 text, without making a `String`; nil for collections.
    package func withText<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        try tree.withScalarText(index, body)
    }
    /// How many nodes this subtree holds with every alias expanded (saturating).
    public var expandedCount: Int { Int(entry.expandedCount) }
    /// How many bytes of scalar text this subtree holds with every alias expanded (saturating): a
    /// large string named by many aliases is small in the file and large in everything that reads it.
    public var expandedBytes: Int { Int(entry.expandedBytes) }

    /// A mapping's entries in document order: its child nodes taken two at a time.
    ///
    /// Collections of their own rather than a lazy `map` over a range: that closure captured the tree,
    /// and every mapping walked cost an allocation for it.
    public struct Pairs: RandomAccessCollection, Sendable {
        /// Keys and values in turn.
        let nodes: Items

        public var startIndex: Int { 0 }
        public var endIndex: Int { nodes.count / 2 }

        public subscript(position: Int) -> (key: YAMLNode, value: YAMLNode) {
            (nodes[2 * position], nodes[2 * position + 1])
        }
    }

    /// A sequence's items in document order (or a mapping's keys and values in turn, for ``Pairs``),
    /// read from the tree's tables as they are visited.
    public struct Items: RandomAccessCollection, Sendable {
        let tree: YAMLTree
        let first: Int
        public let count: Int

        public var startIndex: Int { 0 }
        public var endIndex: Int { count }

        public subscript(position: Int) -> YAMLNode {
            precondition(position >= 0 && position < count, "child index out of range")
            return YAMLNode(tree: tree, index: Int(tree.children[first + position]))
        }
    }

    /// A mapping's entries in document order; empty for other kinds.
    public var pairs: Pairs {
        let (tree, first, count) = children(of: .mapping)
        return Pairs(nodes: Items(tree: tree, first: first, count: count))
    }

    /// A sequence's items in document order; empty for other kinds.
    public var items: Items {
        let (tree, first, count) = children(of: .sequence)
        return Items(tree: tree, first: first, count: count)
    }

    /// The value under a scalar key with this text, in a mapping.
    public subscript(key: String) -> YAMLNode? {
        tree.value(in: index, forKey: key).map { YAMLNode(tree: tree, index: $0) }
    }

    /// Where this node's children are in the tree's child table, when it is of `kind`.
    private func children(of kind: YAMLTree.Kind) -> (YAMLTree, Int, Int) {
        let entry = self.entry
        return entry.kind == kind ? (tree, Int(entry.firstChild), Int(entry.childCount)) : (tree, 0, 0)
    }
}
