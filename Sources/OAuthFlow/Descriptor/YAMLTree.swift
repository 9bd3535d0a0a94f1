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
    package func anyScalar(
        key: (UnsafeBufferPointer<UInt8>, YAMLNode) -> Bool, value: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool {
        text.withUnsafeBufferPointer { text in
            for index in entries.indices {
                let entry = entries[index]
                switch entry.kind {
                case .scalar:
                    if value(Self.slice(text, entry)) { return true }
                case .mapping:
                    let first = Int(entry.firstChild)
                    for position in stride(from: first, to: first + Int(entry.childCount), by: 2) {
                        let candidate = entries[Int(children[position])]
                        if candidate.kind == .scalar,
                            key(Self.slice(text, candidate), YAMLNode(tree: self, index: Int(children[position + 1])))
                        {
                            return true
                        }
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
    static func compose(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = .max) throws(YAMLSyntaxError) -> YAMLTree? {
        var composer = Composer(maximumDepth: maximumDepth)
        return try composer.compose(bytes)
    }
}

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

/// What keeps text from being one YAML document, with where.
package struct YAMLSyntaxError: Error, Sendable {
    public enum Kind: Sendable {
        /// libyaml's reader (encoding), scanner (tokens) or parser (structure) refused the text.
        case reader, scanner, parser
        /// The events did not make one tree: an undefined alias, or a second document.
        case composer
        /// A mapping holds the same key twice; `problem` lists the repeated keys.
        case duplicateKeys([String])
        /// Collections nest deeper than the limit the caller set; the position is the first one too deep,
        /// or the alias that stands for one (`throughAlias`).
        case tooDeep(limit: Int, throughAlias: Bool)
    }

    public let kind: Kind
    /// What libyaml was reading when it failed, and where (“while scanning a simple key”).
    public let context: (text: String, line: Int, column: Int)?
    /// What went wrong.
    public let problem: String
    /// Where, 1-based.
    public let line: Int
    public let column: Int
}

/// Builds a ``YAMLTree`` from libyaml's event stream, without recursion.
private struct Composer {
    /// The most collections open at once.
    let maximumDepth: Int
    private var entries: [YAMLTree.Entry] = []
    private var text: [UInt8] = []
    private var customTags: [Int32: Tag.Name] = [:]
    private var children: [Int32] = []
    /// Child indices of the open collections, innermost last; `open` marks where each begins.
    private var pending: [Int32] = []
    private var open: [(entry: Int, pendingStart: Int, anchor: String?)] = []
    private var anchors: [String: Int32] = [:]

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    mutating func compose(_ bytes: UnsafeBufferPointer<UInt8>) throws(YAMLSyntaxError) -> YAMLTree? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLSyntaxError(kind: .reader, context: nil, problem: "libyaml could not start", line: 1, column: 1)
        }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        // About one node for every dozen bytes of a descriptor: room for them all at once, not by doubling.
        let expected = bytes.count / 12 + 16
        entries.reserveCapacity(expected)
        // Scalars' text is most of a descriptor's bytes, never more (escapes and folding only shorten it).
        text.reserveCapacity(bytes.count)
        children.reserveCapacity(expected)
        if let base = bytes.baseAddress {
            yaml_parser_set_input_string(&parser, base, bytes.count)
        } else {
            yaml_parser_set_input_string(&parser, "", 0)
        }
        var documents = 0
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else { throw Self.error(from: parser, in: bytes) }
            defer { yaml_event_delete(&event) }
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return entries.isEmpty ? nil : YAMLTree(entries: entries, text: text, children: children, customTags: customTags)
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw YAMLSyntaxError(
                        kind: .composer, context: ("expected a single document in the stream", 1, 1),
                        problem: "but found another document", line: Int(Self.line(event.start_mark)), column: Int(Self.column(event.start_mark)))
                }
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let bytes = UnsafeBufferPointer(start: scalar.value, count: scalar.length)
                let style = Self.style(scalar.style)
                // A quoted scalar is a string: no tag name is made and compared for it (most scalars of a descriptor).
                let tag: Tag.Name?
                let code: YAMLTree.TagCode
                if scalar.quoted_implicit == 1 {
                    (tag, code) = (nil, .str)
                } else if let explicit = Self.string(scalar.tag) {
                    tag = explicit == Tag.Name.nonSpecific.rawValue ? .str : Tag.Name(rawValue: explicit)
                    code = tag.map(YAMLTree.TagCode.init) ?? .str
                } else {
                    tag = nil
                    code = style == .plain ? ScalarTyping.code(of: bytes) : .str
                }
                let index = append(
                    YAMLTree.Entry(
                        kind: .scalar, style: style, tag: code,
                        line: Self.line(event.start_mark), column: Self.column(event.start_mark),
                        expandedBytes: Int32(clamping: bytes.count), textStart: Int32(clamping: text.count)))
                text.append(contentsOf: bytes)
                if code == .custom, let tag { customTags[index] = tag }
                if let anchor = Self.string(scalar.anchor) { anchors[anchor] = index }
                attach(index)
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.data.alias.anchor) ?? ""
                guard let target = anchors[name] else {
                    throw YAMLSyntaxError(
                        kind: .composer, context: nil, problem: "found undefined alias",
                        line: Int(Self.line(event.start_mark)), column: Int(Self.column(event.start_mark)))
                }
                // The anchor's whole depth stands where the alias does: refused here, at the alias.
                guard open.count + Int(entries[Int(target)].depth) <= maximumDepth else {
                    throw YAMLSyntaxError(
                        kind: .tooDeep(limit: maximumDepth, throughAlias: true), context: nil,
                        problem: "collections nest too deep through this alias",
                        line: Int(Self.line(event.start_mark)), column: Int(Self.column(event.start_mark)))
                }
                attach(target)
            case YAML_SEQUENCE_START_EVENT:
                let start = event.data.sequence_start
                try openCollection(.sequence, tag: Self.string(start.tag).map(Tag.Name.init(rawValue:)), anchor: start.anchor, mark: event.start_mark)
            case YAML_MAPPING_START_EVENT:
                let start = event.data.mapping_start
                try openCollection(.mapping, tag: Self.string(start.tag).map(Tag.Name.init(rawValue:)), anchor: start.anchor, mark: event.start_mark)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                try closeCollection()
            default:
                break
            }
        }
    }

    private mutating func append(_ entry: YAMLTree.Entry) -> Int32 {
        entries.append(entry)
        return Int32(entries.count - 1)
    }

    private mutating func attach(_ index: Int32) {
        // The root has no parent to attach to: it is entry 0.
        if !open.isEmpty { pending.append(index) }
    }

    /// Opens a collection; `tag` is nil when the file writes none (most do), which is the kind's own tag
    /// without comparing a name with every tag YAML 1.1 knows.
    private mutating func openCollection(
        _ kind: YAMLTree.Kind, tag: Tag.Name?, anchor: UnsafeMutablePointer<UInt8>?, mark: yaml_mark_t
    ) throws(YAMLSyntaxError) {
        // Counted here, as the events arrive, so a hostile file is refused before libyaml reads the rest of it
        // and before anything walks the tree recursively.
        guard open.count < maximumDepth else {
            throw YAMLSyntaxError(
                kind: .tooDeep(limit: maximumDepth, throughAlias: false), context: nil, problem: "collections nest too deep",
                line: Int(Self.line(mark)), column: Int(Self.column(mark)))
        }
        let code = tag.map(YAMLTree.TagCode.init) ?? (kind == .mapping ? .map : .seq)
        let index = append(YAMLTree.Entry(kind: kind, style: .plain, tag: code, line: Self.line(mark), column: Self.column(mark)))
        if code == .custom, let tag { customTags[index] = tag }
        open.append((Int(index), pending.count, Self.string(anchor)))
    }

    private mutating func closeCollection() throws(YAMLSyntaxError) {
        guard let collection = open.popLast() else { return }
        let start = collection.pendingStart, end = pending.count
        var expanded: Int32 = 1
        var bytes: Int32 = 0
        var deepest: Int32 = 0
        for position in start..<end {
            let kid = entries[Int(pending[position])]
            let (sum, overflow) = expanded.addingReportingOverflow(kid.expandedCount)
            expanded = overflow ? .max : sum
            let (byteSum, byteOverflow) = bytes.addingReportingOverflow(kid.expandedBytes)
            bytes = byteOverflow ? .max : byteSum
            deepest = max(deepest, kid.depth)
        }
        entries[collection.entry].firstChild = Int32(children.count)
        entries[collection.entry].childCount = Int32(end - start)
        entries[collection.entry].expandedCount = expanded
        entries[collection.entry].expandedBytes = bytes
        // Within the limit already: each collection was counted as it opened, and each alias where it stood.
        entries[collection.entry].depth = deepest + 1
        children.append(contentsOf: pending[start..<end])
        pending.removeLast(end - start)
        if entries[collection.entry].kind == .mapping { try checkDuplicateKeys(of: collection.entry) }
        if let anchor = collection.anchor { anchors[anchor] = Int32(collection.entry) }
        attach(Int32(collection.entry))
    }

    /// Refuses a mapping whose scalar keys repeat a text, naming the repeats (sorted) and
    /// pointing at the second occurrence of the first.
    private func checkDuplicateKeys(of mapping: Int) throws(YAMLSyntaxError) {
        let entry = entries[mapping]
        let first = Int(entry.firstChild)
        let end = first + Int(entry.childCount)
        var collectionKeys = 0
        for position in stride(from: first, to: end, by: 2) where entries[Int(children[position])].kind != .scalar {
            collectionKeys += 1
        }
        // Each key's form holds its text with aliases followed: past the document's text limit (refused after composing)
        // a hostile file could make the forms gigabytes, so such a mapping is left to that refusal.
        if collectionKeys > 1, entry.expandedBytes <= DescriptorDocument.maximumExpandedBytes {
            try checkDuplicateCollectionKeys(from: first, to: end)
        }
        // A descriptor's mappings hold a few keys: comparing each with those before it costs less
        // than hashing them (and allocates nothing); a long mapping (a hostile file's, say) is hashed.
        if entry.childCount <= 64 {
            // Byte for byte while the keys are ASCII; keys with other characters are compared as strings
            // below, by canonical equivalence, as the dictionaries decoded from them will compare them.
            let clean = text.withUnsafeBufferPointer { text in
                for later in stride(from: first, to: end, by: 2) {
                    let key = entries[Int(children[later])]
                    guard key.kind == .scalar else { continue }
                    let bytes = YAMLTree.slice(text, key)
                    guard UTF8Search.isASCII(bytes) else { return false }
                    for earlier in stride(from: first, to: later, by: 2) {
                        let other = entries[Int(children[earlier])]
                        if other.kind == .scalar, YAMLTree.equal(bytes, YAMLTree.slice(text, other)) { return false }
                    }
                }
                return true
            }
            if clean { return }
        }
        let keys = stride(from: first, to: end, by: 2).map { Int(children[$0]) }.filter { entries[$0].kind == .scalar }
        var seen: Set<String> = []
        var repeats: [String: Int] = [:]
        for key in keys {
            let text = text.withUnsafeBufferPointer { String(decoding: YAMLTree.slice($0, entries[key]), as: UTF8.self) }
            if !seen.insert(text).inserted, repeats[text] == nil { repeats[text] = key }
        }
        guard !repeats.isEmpty else { return }
        let names = repeats.keys.sorted()
        guard let firstName = names.first, let secondKey = repeats[firstName] else { return }
        let second = entries[secondKey]
        throw YAMLSyntaxError(
            kind: .duplicateKeys(names), context: nil, problem: "duplicate keys",
            line: Int(second.line), column: Int(second.column))
    }

    /// Refuses two keys that are collections (a `? ` key, which YAML allows and a descriptor never needs) holding the
    /// same: the same kinds in the same shape, with the same scalar texts, as Yams compares them.
    private func checkDuplicateCollectionKeys(from first: Int, to end: Int) throws(YAMLSyntaxError) {
        var seen: Set<[UInt8]> = []
        for position in stride(from: first, to: end, by: 2) {
            let key = Int(children[position])
            guard entries[key].kind != .scalar else { continue }
            var form: [UInt8] = []
            canonicalForm(of: key, into: &form)
            guard seen.insert(form).inserted else {
                let second = entries[key]
                throw YAMLSyntaxError(
                    kind: .duplicateKeys([second.kind == .mapping ? "(a mapping)" : "(a sequence)"]), context: nil, problem: "duplicate keys",
                    line: Int(second.line), column: Int(second.column))
            }
        }
    }

    /// A node's kinds, shape and scalar texts, aliases followed, as bytes that are equal exactly when those are.
    private func canonicalForm(of index: Int, into form: inout [UInt8]) {
        let node = entries[index]
        switch node.kind {
        case .scalar:
            form.append(0)
            withUnsafeBytes(of: node.expandedBytes.littleEndian) { form.append(contentsOf: $0) }
            let start = Int(node.textStart)
            form.append(contentsOf: text[start..<(start + Int(node.expandedBytes))])
        case .sequence, .mapping:
            form.append(node.kind == .mapping ? 1 : 2)
            withUnsafeBytes(of: node.childCount.littleEndian) { form.append(contentsOf: $0) }
            for position in Int(node.firstChild)..<Int(node.firstChild + node.childCount) {
                canonicalForm(of: Int(children[position]), into: &form)
            }
        }
    }

    // MARK: libyaml values

    private static func string(_ pointer: UnsafeMutablePointer<UInt8>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func line(_ mark: yaml_mark_t) -> Int32 { Int32(clamping: mark.line + 1) }
    private static func column(_ mark: yaml_mark_t) -> Int32 { Int32(clamping: mark.column + 1) }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLTree.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }

    private static func error(from parser: yaml_parser_t, in bytes: UnsafeBufferPointer<UInt8>) -> YAMLSyntaxError {
        let problem = parser.problem.map { String(cString: $0) } ?? "libyaml failed (error \(parser.error.rawValue))"
        let context = parser.context.map {
            (text: String(cString: $0), line: Int(line(parser.context_mark)), column: Int(column(parser.context_mark)))
        }
        switch parser.error {
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR:
            return YAMLSyntaxError(
                kind: parser.error == YAML_SCANNER_ERROR ? .scanner : .parser, context: context, problem: problem,
                line: Int(line(parser.problem_mark)), column: Int(column(parser.problem_mark)))
        default:
            // The reader reports a byte offset rather than a mark.
            let position = TextPosition.of(byteOffset: Int(parser.problem_offset), in: bytes)
            return YAMLSyntaxError(kind: .reader, context: nil, problem: problem, line: position.line, column: position.column)
        }
    }
}
