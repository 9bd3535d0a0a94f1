import CYaml
import Foundation
import Yams

/// Builds a ``YAMLTree`` from libyaml's event stream, without recursion.
struct YAMLComposer {
    /// The most collections open at once.
    let maximumDepth: Int
    private var entries: [YAMLTree.Entry] = []
    /// The scalars' text, one after another.
    private var text = Run<UInt8>(capacity: 0)
    private var customTags: [Int32: Tag.Name] = [:]
    private var children: [Int32] = []
    /// Child indices of the open collections, innermost last; `open` marks where each begins.
    private var pending = Run<Int32>(capacity: 64)
    private var open: [(entry: Int, pendingStart: Int, anchor: String?)] = []
    private var anchors: [String: Int32] = [:]

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    /// - Parameters:
    ///   - throughReader: Whether libyaml's reader reads the text even when ``YAMLReaderInput`` could hand it over (tests
    ///     compare the two ways).
    ///   - characters: ``YAMLReaderInput/characterCount(_:)`` of `bytes`, when the caller has it (counted here otherwise).
    mutating func compose(_ bytes: UnsafeBufferPointer<UInt8>, throughReader: Bool = false, characters: Int? = nil) throws(YAMLSyntaxError)
        -> YAMLTree?
    {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLSyntaxError(kind: .reader, context: nil, problem: "libyaml could not start", line: 1, column: 1)
        }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        // About one node for every dozen bytes of a descriptor: room for them all at once, not by doubling.
        let expected = bytes.count / 12 + 16
        entries.reserveCapacity(expected)
        // Scalars' text is most of a descriptor's bytes, and rarely more (escapes and folding shorten it; only `\L` and
        // `\P` lengthen it).
        text = Run(capacity: bytes.count)
        children.reserveCapacity(expected)
        // The collections open at once: room for a descriptor's at the start, where the list grew from nothing by
        // doubling (their children's run starts with room for 64).
        open.reserveCapacity(8)
        if let base = bytes.baseAddress {
            yaml_parser_set_input_string(&parser, base, bytes.count)
        } else {
            yaml_parser_set_input_string(&parser, "", 0)
        }
        if !throughReader, let input = YAMLReaderInput(bytes, characters: characters ?? YAMLReaderInput.characterCount(bytes)) {
            return try input.reading(with: &parser) { (parser) throws(YAMLSyntaxError) in try composeEvents(&parser, in: bytes) }
        }
        return try composeEvents(&parser, in: bytes)
    }

    /// The tree of the events `parser` gives.
    private mutating func composeEvents(_ parser: inout yaml_parser_t, in bytes: UnsafeBufferPointer<UInt8>) throws(YAMLSyntaxError)
        -> YAMLTree?
    {
        var documents = 0
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else { throw Self.error(from: parser, in: bytes) }
            defer { yaml_event_delete(&event) }
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return entries.isEmpty ? nil : YAMLTree(entries: entries, text: Array(text.elements), children: children, customTags: customTags)
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw YAMLSyntaxError(
                        kind: .composer, context: ("expected a single document in the stream", 1, 1),
                        problem: "but found another document", line: Int(Self.line(event.start_mark)), column: Int(Self.column(event.start_mark)))
                }
            case YAML_SCALAR_EVENT:
                addScalar(event)
            case YAML_ALIAS_EVENT:
                try addAlias(event)
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

    /// A scalar, typed once (``ScalarTyping``), its text appended to the tree's one run of bytes.
    private mutating func addScalar(_ event: yaml_event_t) {
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
    }

    /// An alias: the anchored node again, refused when its depth where the alias stands is past the limit.
    private mutating func addAlias(_ event: yaml_event_t) throws(YAMLSyntaxError) {
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
    }

    private mutating func append(_ entry: YAMLTree.Entry) -> Int32 {
        entries.append(entry)
        return Int32(entries.count - 1)
    }

    private mutating func attach(_ index: Int32) {
        // The root has no parent to attach to: it is entry 0.
        guard !open.isEmpty else { return }
        pending.append(index)
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
        let kids = pending.elements
        var expanded: Int32 = 1
        var bytes: Int32 = 0
        var deepest: Int32 = 0
        for position in start..<end {
            let kid = entries[Int(kids[position])]
            let (sum, overflow) = expanded.addingReportingOverflow(kid.expandedCount)
            expanded = overflow ? .max : sum
            let (byteSum, byteOverflow) = bytes.addingReportingOverflow(kid.expandedBytes)
            bytes = byteOverflow ? .max : byteSum
            deepest = max(deepest, kid.depth)
        }
        // Written back once: each field set in the list was a check that the list is not shared, five a collection.
        var closed = entries[collection.entry]
        closed.firstChild = Int32(children.count)
        closed.childCount = Int32(end - start)
        closed.expandedCount = expanded
        closed.expandedBytes = bytes
        // Within the limit already: each collection was counted as it opened, and each alias where it stood.
        closed.depth = deepest + 1
        entries[collection.entry] = closed
        children.append(contentsOf: UnsafeBufferPointer(rebasing: kids[start..<end]))
        pending.removeLast(end - start)
        if closed.kind == .mapping { try checkDuplicateKeys(of: collection.entry) }
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
        if entry.childCount <= 64, asciiKeysDiffer(from: first, to: end) { return }
        let keys = stride(from: first, to: end, by: 2).map { Int(children[$0]) }.filter { entries[$0].kind == .scalar }
        var seen: Set<String> = []
        var repeats: [String: Int] = [:]
        for key in keys {
            let text = String(decoding: YAMLTree.slice(text.elements, entries[key]), as: UTF8.self)
            if !seen.insert(text).inserted, repeats[text] == nil { repeats[text] = key }
        }
        guard !repeats.isEmpty else { return }
        let names = repeats.keys.sorted()
        // Positioned at the first repeat in the file, whichever key it is: the line to look at first.
        guard let secondKey = repeats.values.min(by: { (entries[$0].line, entries[$0].column) < (entries[$1].line, entries[$1].column) })
        else { return }
        let second = entries[secondKey]
        throw YAMLSyntaxError(
            kind: .duplicateKeys(names), context: nil, problem: "duplicate keys",
            line: Int(second.line), column: Int(second.column))
    }

    /// Whether the scalar keys at `first..<end` (every other child) are ASCII and no two are the same, compared byte for
    /// byte; false when a key is not ASCII (such keys are compared as strings, by canonical equivalence, as the
    /// dictionaries decoded from them will compare them) or two are the same.
    private func asciiKeysDiffer(from first: Int, to end: Int) -> Bool {
        let text = text.elements
        // A bit for each key's length and last byte: a key whose bit no earlier key set repeats none of them,
        // so most keys are compared with none.
        var seen: UInt64 = 0
        for later in stride(from: first, to: end, by: 2) {
            let key = entries[Int(children[later])]
            guard key.kind == .scalar else { continue }
            let bytes = YAMLTree.slice(text, key)
            guard UTF8Search.isASCII(bytes) else { return false }
            let bit: UInt64 = 1 << ((UInt64(bytes.count) &* 7 &+ UInt64(bytes.last ?? 0)) & 63)
            defer { seen |= bit }
            guard seen & bit != 0 else { continue }
            for earlier in stride(from: first, to: later, by: 2) {
                let other = entries[Int(children[earlier])]
                if other.kind == .scalar, YAMLTree.equal(bytes, YAMLTree.slice(text, other)) { return false }
            }
        }
        return true
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
            form.append(contentsOf: text.elements[start..<(start + Int(node.expandedBytes))])
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

/// What the composer writes one after another (scalars' text, the children of the open collections), in one allocation
/// it grows itself: an element or a scalar's bytes are copied in with a store or `memcpy`, where an array's `append`
/// went through its checks that the array is not shared and, for bytes, its generic path (a tenth of composing's own
/// instructions for the text).
private final class Run<Element: BitwiseCopyable> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// The elements written so far, valid until the next change.
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    func append(_ element: Element) {
        if count == capacity { grow(to: count + 1) }
        (base + count).initialize(to: element)
        count += 1
    }

    func append(contentsOf more: UnsafeBufferPointer<Element>) {
        guard let source = more.baseAddress, !more.isEmpty else { return }
        if count + more.count > capacity { grow(to: count + more.count) }
        (base + count).initialize(from: source, count: more.count)
        count += more.count
    }

    /// Forgets the last `removed` elements (plain values: nothing to deinitialize).
    func removeLast(_ removed: Int) {
        precondition(removed >= 0 && removed <= count)
        count -= removed
    }

    private func grow(to least: Int) {
        let grown = max(2 * capacity, least)
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: grown)
        larger.initialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity = grown
    }
}
