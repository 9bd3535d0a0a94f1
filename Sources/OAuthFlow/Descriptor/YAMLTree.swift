import CYaml
import Foundation
import Yams

/// A YAML document composed from libyaml's events into one flat table of nodes.
///
/// libyaml (the C library Yams bundles as `CYaml`) does the parsing; this type only
/// builds the tree. It stores every node in two arrays and every scalar's text in one
/// run of bytes, so a descriptor is a few allocations instead of one boxed,
/// reference-counted `Yams.Node` per value (or one `String` per scalar), and walking
/// it copies nothing: a key is compared with a name byte for byte, and a scalar
/// becomes a `String` only when it is asked for one (see Docs/benchmarks.md). Scalars are typed once, while
/// composing, by ``ScalarTyping`` with YAML 1.1 rules as Yams' default resolver would.
///
/// Aliases point at the anchored node; no subtree is copied. ``YAMLNode/expandedCount``
/// says how many nodes the document would have with every alias expanded, so alias
/// bombs are caught before anything walks them.
package final class YAMLTree: Sendable {
    /// A node's kind.
    public enum Kind: UInt8, Sendable {
        case scalar, mapping, sequence
    }

    /// How a scalar was written.
    public enum Style: UInt8, Sendable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// A node's tag in one byte: the tags YAML 1.1 gives plain scalars and collections, or
    /// `custom` for one written in the file (kept in ``YAMLTree/customTags``).
    enum TagCode: UInt8, Sendable {
        case str, int, float, bool, null, merge, timestamp, value, seq, map, custom

        init(_ name: Tag.Name) {
            switch name {
            case .str: self = .str
            case .int: self = .int
            case .float: self = .float
            case .bool: self = .bool
            case .null: self = .null
            case .merge: self = .merge
            case .timestamp: self = .timestamp
            case .value: self = .value
            case .seq: self = .seq
            case .map: self = .map
            default: self = .custom
            }
        }

        /// The tag's name; `custom` has none of its own.
        var name: Tag.Name {
            switch self {
            case .str, .custom: .str
            case .int: .int
            case .float: .float
            case .bool: .bool
            case .null: .null
            case .merge: .merge
            case .timestamp: .timestamp
            case .value: .value
            case .seq: .seq
            case .map: .map
            }
        }
    }

    /// A node without its text: plain values only, so reading one retains nothing.
    struct Entry: Sendable {
        var kind: Kind
        var style: Style
        var tag: TagCode
        var line: Int32
        var column: Int32
        var firstChild: Int32 = 0
        var childCount: Int32 = 0
        /// Nodes in this subtree with every alias expanded, saturating at `Int32.max`.
        var expandedCount: Int32 = 1
        /// Bytes of scalar text in this subtree with every alias expanded, saturating at `Int32.max`.
        var expandedBytes: Int32 = 0
        /// The collections on the longest path down from this node, aliases followed (0 for a scalar).
        var depth: Int32 = 0
        /// Where a scalar's text starts in ``YAMLTree/text``; its length is `expandedBytes`.
        var textStart: Int32 = 0
    }

    let entries: [Entry]
    /// Every scalar's text in UTF-8, one after another (libyaml's reader has checked the encoding).
    let text: [UInt8]
    /// Children of collections, contiguous per collection; a mapping's are key, value, key, value.
    let children: [Int32]
    /// The tags written in the file that YAML 1.1 does not name, by node index.
    let customTags: [Int32: Tag.Name]

    init(entries: [Entry], text: [UInt8], children: [Int32], customTags: [Int32: Tag.Name]) {
        self.entries = entries
        self.text = text
        self.children = children
        self.customTags = customTags
    }

    /// The text of the scalar at `index`, nil for a collection: a node's ``YAMLNode/string`` without the node.
    func scalarText(_ index: Int) -> String? {
        withScalarText(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// `body` over the UTF-8 text of the scalar at `index`; nil for a collection.
    func withScalarText<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        let entry = entries[index]
        guard entry.kind == .scalar else { return nil }
        return try text.withUnsafeBufferPointer { try body(Self.slice($0, entry)) }
    }

    /// The document's root node.
    public var root: YAMLNode { YAMLNode(tree: self, index: 0) }

    /// Whether any scalar key of any mapping satisfies `key` (given the key's UTF-8 text and its value),
    /// or any scalar at all (keys too) satisfies `value`: one pass over the tables, in no particular
    /// order and with no key paths, for a check that most files pass and that walks the tree only
    /// when this answers true.
    ///
    /// `key` is asked only about keys that end with one of `keyEndings` (a bit for each byte below 0x80, in two words)
    /// or with a byte from 0x80 on, and `value` only about scalars of `shortestValue` bytes or more: the rest are
    /// passed over here, without a call for each.
    package func anyScalar(
        keyEndings: (UInt64, UInt64), key: (UnsafeBufferPointer<UInt8>, YAMLNode) -> Bool,
        shortestValue: Int, value: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool {
        text.withUnsafeBufferPointer { text in
            for index in entries.indices {
                let entry = entries[index]
                switch entry.kind {
                case .scalar:
                    if Int(entry.expandedBytes) >= shortestValue, value(Self.slice(text, entry)) { return true }
                case .mapping:
                    let first = Int(entry.firstChild)
                    for position in stride(from: first, to: first + Int(entry.childCount), by: 2) {
                        let candidate = entries[Int(children[position])]
                        guard candidate.kind == .scalar else { continue }
                        let name = Self.slice(text, candidate)
                        guard let last = name.last else { continue }
                        let asked =
                            last >= 0x80 || (last < 64 ? keyEndings.0 >> UInt64(last) : keyEndings.1 >> UInt64(last - 64)) & 1 != 0
                        if asked, key(name, YAMLNode(tree: self, index: Int(children[position + 1]))) { return true }
                    }
                case .sequence:
                    break
                }
            }
            return false
        }
    }

    /// A scalar's bytes within the tree's text.
    static func slice(_ text: UnsafeBufferPointer<UInt8>, _ entry: Entry) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: text[Int(entry.textStart)..<Int(entry.textStart) + Int(entry.expandedBytes)])
    }

    /// The index of the value under a scalar key with the text `key` in the mapping at `mapping`; nil when
    /// it has no such key, or is not a mapping. Straight over the tables: no node is made for a key.
    func value(in mapping: Int, forKey key: String) -> Int? {
        let entry = entries[mapping]
        guard entry.kind == .mapping else { return nil }
        let first = Int(entry.firstChild)
        let positions = stride(from: first, to: first + Int(entry.childCount), by: 2)
        var bytes = key
        let found: Int? = bytes.withUTF8 { bytes in
            guard UTF8Search.isASCII(bytes) else {
                // Strings compare by canonical equivalence, as the dictionaries built from the tree will.
                return positions.first { scalarText(Int(children[$0])) == key }
            }
            // ASCII text is equal to another text only byte for byte.
            return text.withUnsafeBufferPointer { text in
                entries.withUnsafeBufferPointer { entries in
                    children.withUnsafeBufferPointer { children in
                        positions.first { position in
                            let candidate = entries[Int(children[position])]
                            return candidate.kind == .scalar && YAMLTree.equal(YAMLTree.slice(text, candidate), bytes)
                        }
                    }
                }
            }
        }
        return found.map { Int(children[$0 + 1]) }
    }

    /// Whether node `index` is a scalar whose text is `bytes`, byte for byte.
    func scalar(_ index: Int, is bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let entry = entries[index]
        guard entry.kind == .scalar, Int(entry.expandedBytes) == bytes.count else { return false }
        return text.withUnsafeBufferPointer { Self.equal(Self.slice($0, entry), bytes) }
    }

    /// Whether two runs of bytes are the same.
    package static func equal(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool {
        guard first.count == second.count else { return false }
        guard let left = first.baseAddress, let right = second.baseAddress else { return true }
        return memcmp(left, right, first.count) == 0
    }

    /// Composes the single document in `text`.
    ///
    /// - Returns: The tree, or nil when the text holds no document (empty or comments only).
    /// - Throws: ``YAMLSyntaxError`` for what libyaml rejects, an undefined alias, a second
    ///   document, a mapping that repeats a key, or collections nested deeper than `maximumDepth`.
    public static func compose(_ text: String, maximumDepth: Int = .max) throws(YAMLSyntaxError) -> YAMLTree? {
        var text = text
        let result = text.withUTF8 { bytes in Result { () throws(YAMLSyntaxError) in try compose(bytes: bytes, maximumDepth: maximumDepth) } }
        return try result.get()
    }

    /// ``compose(_:maximumDepth:)`` over UTF-8 bytes the caller has checked (a descriptor file, read in place).
    /// `throughReader` has libyaml's reader read the text even where it need not (``YAMLReaderInput``): tests compare the two.
    /// `characters` is ``YAMLReaderInput/characterCount(_:)`` of `bytes` when the caller has counted them already.
    static func compose(
        bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = .max, throughReader: Bool = false, characters: Int? = nil
    ) throws(YAMLSyntaxError) -> YAMLTree? {
        var composer = YAMLComposer(maximumDepth: maximumDepth)
        return try composer.compose(bytes, throughReader: throughReader, characters: characters)
    }
}
