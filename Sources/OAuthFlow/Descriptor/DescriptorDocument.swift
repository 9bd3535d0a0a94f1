import Foundation
import OAuthFlowFiles

/// A descriptor file read into a ``YAMLTree``, checked against ``DescriptorSchema``.
///
/// Reading never traps and never hangs: invalid UTF-8, NUL bytes, empty files,
/// files over ``maximumSize``, nesting deeper than ``maximumDepth`` and documents
/// that expand past ``maximumNodes`` (alias bombs) all become positioned
/// ``DescriptorProblem``s. When there are no problems, ``descriptor`` holds the
/// decoded ``ProviderDescriptor``.
package struct DescriptorDocument {
    /// The largest file read, in bytes. Descriptors are a few kilobytes.
    public static let maximumSize = 1 << 20
    /// The deepest nesting of mappings and sequences accepted.
    public static let maximumDepth = 64
    /// The most nodes a document may expand to.
    public static let maximumNodes = 50_000
    /// The most scalar text a document may expand to, in bytes: twice the largest file, so aliases
    /// cannot make the work of reading a descriptor outgrow its size.
    public static let maximumExpandedBytes = 2 * maximumSize

    /// The path the file was read from, as given.
    public let path: String
    /// The root node, when the YAML parsed.
    public let root: YAMLNode?
    /// What keeps the file from being a valid descriptor, in file order.
    public let problems: [DescriptorProblem]
    /// The decoded descriptor, present only when ``problems`` is empty.
    public let descriptor: ProviderDescriptor?

    /// Reads a descriptor from a file.
    ///
    /// - Parameter url: The file to read.
    /// - Returns: The document; an unreadable file is a document with one problem.
    public static func load(contentsOf url: URL) -> DescriptorDocument {
        // Report the path as the caller wrote it: relative paths stay relative.
        load(contentsOf: url, reportedAs: url.relativePath)
    }

    /// Reads a descriptor from a file, naming it `path` in problems (a caller holding many
    /// paths passes its own, so the document shares the text instead of a copy).
    public static func load(contentsOf url: URL, reportedAs path: String) -> DescriptorDocument {
        load([(url.path, AT_FDCWD, path)][...]) { $0 }[0]
    }

    /// Reads the descriptors at the file-system paths `files` (each relative to its open `directory`, or `AT_FDCWD`),
    /// naming each by its `reportedAs` in problems: for a caller that holds paths (lint's thousands of files), with no
    /// `URL` made for each. What `make` makes of each document comes back in the order of `files`, each document what
    /// ``parse(_:path:)`` makes of its file's bytes, handed over rather than copied (a copy retains each of its
    /// descriptor's values).
    ///
    /// The files go through each stage together, all read, then all composed, all checked against the schema and
    /// all decoded: the code of a stage stays in the processor's cache from one file to the next, where going
    /// through every stage for each file in turn brought each stage's code back in for every file.
    ///
    /// - Parameter budget: Once the files read hold this many bytes, no more are read: what comes back is for the
    ///   first files only (at least one), and the caller asks again for the rest. It bounds what a caller holding
    ///   the results at once holds, whatever the files' sizes.
    package static func load<Made>(
        _ files: ArraySlice<(path: String, directory: Int32, reportedAs: String)>, bytes budget: Int = .max,
        as make: (consuming DescriptorDocument) -> Made
    ) -> [Made] {
        var bytes: [[UInt8]] = []
        var stages: [Stage] = []
        var held = 0
        for file in files {
            if !stages.isEmpty, held >= budget { break }
            do {
                bytes.append(try RawFile.read(file.path, in: file.directory, limit: maximumSize))
                held += bytes[bytes.count - 1].count
                stages.append(.read(bytes.count - 1))
            } catch {
                stages.append(.refused(nil, [unreadable(error, path: file.reportedAs)], path: file.reportedAs))
            }
        }
        for (index, file) in zip(stages.indices, files) {
            guard case let .read(place) = stages[index] else { continue }
            stages[index] = bytes[place].withUnsafeBufferPointer { composing($0, path: file.reportedAs) }
        }
        bytes = []
        return finished(&stages, as: make)
    }

    /// The problem of a file that could not be read.
    private static func unreadable(_ error: any Error, path: String) -> DescriptorProblem {
        let message: String
        switch error {
        case let error as RawFile.ReadError where error.kind == .tooLarge:
            message = tooLargeMessage
        case let error as RawFile.ReadError where error.kind == .missing && path.contains("\u{FFFD}"):
            // The listing could not spell the name: its bytes are not UTF-8, so no path this program makes opens it.
            message = "cannot read the file: its name is not valid UTF-8; rename it"
        case let error as RawFile.ReadError:
            message = "cannot read the file: \(error.reason)"
        default:
            message = "cannot read the file: \(error)"
        }
        return DescriptorProblem(kind: .malformedYAML, location: SourceLocation(path: path, line: 1, column: 1), message: message)
    }

    private static let tooLargeMessage = "file is larger than \(maximumSize / 1024) KiB; a descriptor is a few kilobytes of YAML"

    /// Parses descriptor bytes.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - path: The path to report in problems.
    public static func parse(_ data: Data, path: String) -> DescriptorDocument {
        data.withUnsafeBytes { parse(bytes: $0.assumingMemoryBound(to: UInt8.self), path: path) }
    }

    /// Parses descriptor bytes in memory the caller owns (a file just read, say), without copying them into `Data`.
    static func parse(bytes: UnsafeBufferPointer<UInt8>, path: String) -> DescriptorDocument {
        var stages = [composing(bytes, path: path)]
        return finished(&stages) { $0 }[0]
    }

    /// Where a file stands between the stages of ``load(_:bytes:as:)``: its bytes' place among those read, its tree, its tree
    /// found to fit the schema, or what a stage refused it for (its tree, when it has one). A few words each: a
    /// document (its descriptor's hundreds of values) is made only at the end, not moved from stage to stage.
    private enum Stage {
        case read(Int)
        case composed(YAMLNode, path: String)
        case checked(YAMLNode, [ShapeTable.KeyField], path: String)
        case refused(YAMLNode?, [DescriptorProblem], path: String)
    }

    /// The stage after composing `bytes`.
    private static func composing(_ bytes: UnsafeBufferPointer<UInt8>, path: String) -> Stage {
        switch compose(bytes, path: path, empty: "file is empty; a descriptor needs at least schema_version, id, display_name and protocol") {
        case let .failure(failure): .refused(nil, [failure.problem], path: path)
        case let .success(root): .composed(root, path: path)
        }
    }

    /// Takes every composed tree through the schema check, then every tree that fits it through the decoder.
    private static func finished<Made>(_ stages: inout [Stage], as make: (consuming DescriptorDocument) -> Made) -> [Made] {
        for index in stages.indices {
            guard case let .composed(root, path) = stages[index] else { continue }
            var validator = SchemaValidator(path: path)
            validator.check(root, against: ShapeTable.descriptor, keyPath: [])
            stages[index] =
                validator.problems.isEmpty
                ? .checked(root, validator.keyFields, path: path) : .refused(root, validator.problems, path: path)
        }
        var made: [Made] = []
        made.reserveCapacity(stages.count)
        for stage in stages {
            switch stage {
            case let .refused(root, problems, path):
                made.append(make(DescriptorDocument(path: path, root: root, problems: problems, descriptor: nil)))
            case let .checked(root, keyFields, path):
                do {
                    let descriptor = try DescriptorDocument.decode(root, sourcePath: path, keyFields: keyFields)
                    made.append(make(DescriptorDocument(path: path, root: root, problems: [], descriptor: descriptor)))
                } catch {
                    // The schema check should have caught anything the decoder rejects; report it rather than hide it.
                    let problem = DescriptorProblem(
                        kind: .wrongType, location: SourceLocation(path: path, line: 1, column: 1), message: "cannot decode the descriptor: \(error)")
                    made.append(make(DescriptorDocument(path: path, root: root, problems: [problem], descriptor: nil)))
                }
            case .read, .composed:
                preconditionFailure("every file is composed and checked before it is decoded")
            }
        }
        return made
    }

    /// Why a file could not be composed.
    struct ComposeFailure: Error {
        let problem: DescriptorProblem
    }

    /// Reads bytes into a node tree within every budget a descriptor has: size, no NUL, UTF-8,
    /// nesting depth, libyaml's syntax, and the node count once aliases are expanded.
    ///
    /// - Parameter empty: The message for a file with no document.
    static func compose(_ data: Data, path: String, empty: String) -> Result<YAMLNode, ComposeFailure> {
        data.withUnsafeBytes { compose($0.assumingMemoryBound(to: UInt8.self), path: path, empty: empty) }
    }

    /// ``compose(_:path:empty:)`` over bytes in memory: every check below reads the buffer
    /// directly (`memchr` for the NUL), not byte by byte through `Data`'s storage.
    static func compose(_ data: UnsafeBufferPointer<UInt8>, path: String, empty: String) -> Result<YAMLNode, ComposeFailure> {
        func failed(_ message: String, line: Int = 1, column: Int = 1) -> Result<YAMLNode, ComposeFailure> {
            .failure(
                ComposeFailure(
                    problem: DescriptorProblem(
                        kind: .malformedYAML, location: SourceLocation(path: path, line: line, column: column), message: message)))
        }
        if data.count > maximumSize {
            return failed(tooLargeMessage)
        }
        // A UTF-8 byte order mark may open a YAML stream (YAML 1.2 §5.2); editors on Windows write one.
        // libyaml, told the encoding, would read it as content, so it is left out here.
        var data = data
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = UnsafeBufferPointer(rebasing: data[3...]) }
        // Text that libyaml's reader would take as it is (``YAMLReaderInput``) holds no NUL and is valid UTF-8: the two
        // checks that find the first NUL or invalid byte read only other text (a pass less over most files).
        let characters = YAMLReaderInput.characterCount(data)
        if characters == nil, let base = data.baseAddress, let nul = memchr(base, 0, data.count) {
            let position = TextPosition.of(byteOffset: UnsafeRawPointer(nul) - UnsafeRawPointer(base), in: data)
            return failed("file contains a NUL byte; it looks binary, not YAML", line: position.line, column: position.column)
        }
        guard characters != nil || UTF8Validation.isValid(data) else {
            let offset = TextPosition.firstInvalidUTF8Offset(in: data)
            let position = TextPosition.of(byteOffset: offset, in: data)
            return failed("file is not valid UTF-8 text", line: position.line, column: position.column)
        }
        // Composed from the bytes in place; a `String` of the text is made only for a syntax error's message.
        let root: YAMLNode?
        do {
            // Text the count refused goes through libyaml's reader, which says where; it is not counted again.
            root = try YAMLTree.compose(bytes: data, maximumDepth: maximumDepth, throughReader: characters == nil, characters: characters)?.root
        } catch {
            let text = String(decoding: data, as: UTF8.self)
            let (message, position) = YAMLErrorDescription.describe(error, in: text)
            return failed(message, line: position.line, column: position.column)
        }
        guard let root else { return failed(empty) }
        // Aliases share nodes that each use expands again: count the expansion before walking it,
        // so an alias bomb is reported as one, not as the unknown keys that hold it.
        if root.expandedCount > maximumNodes {
            // Only aliases make the expansion larger than the tree: a document that is simply that large is told so.
            return failed(
                root.expandedCount > root.tree.entries.count
                    ? "document expands to more than \(maximumNodes) nodes once its aliases are followed (anchors and aliases)"
                    : "document holds more than \(maximumNodes) nodes; a descriptor needs a few hundred, and a mapping or list at most \(DescriptorSchema.maximumEntries) entries"
            )
        }
        if root.expandedBytes > maximumExpandedBytes {
            return failed(
                "document's text expands to more than \(maximumExpandedBytes / 1024) KiB once its aliases are followed (anchors and aliases?)")
        }
        return .success(root)
    }

    /// Reads a resources file (`resources_file`: JSON or YAML, a list of `{scope, title, url}`)
    /// within the same budgets as a descriptor, checked against the schema of `resources`
    /// (URLs at most ``DescriptorSchema/maximumURLLength`` bytes).
    ///
    /// - Returns: The entries, or (when `problems` is not empty) the problems, each with its line and column.
    public static func parseResources(_ data: Data, path: String)
        -> (entries: [ProviderDescriptor.ResourceTemplate], problems: [DescriptorProblem])
    {
        let root: YAMLNode
        switch compose(data, path: path, empty: "file is empty; a resources file is a list of {scope, title, url} entries") {
        case let .failure(failure): return ([], [failure.problem])
        case let .success(composed): root = composed
        }
        var validator = SchemaValidator(path: path, showsValues: false)
        validator.check(root, against: ShapeTable.resources, keyPath: [])
        guard validator.problems.isEmpty else { return ([], validator.problems) }
        do {
            return (try decodeResources(root), [])
        } catch {
            return (
                [],
                [
                    DescriptorProblem(
                        kind: .wrongType, location: SourceLocation(path: path, line: root.line, column: root.column),
                        message: "cannot decode the resources: \(error)")
                ]
            )
        }
    }

    /// The node at a key path, such as `["security", "pkce"]`, if present.
    /// In a list, a step is the item's index, in decimal digits (`resources.1.url`).
    public func node(at keyPath: [String]) -> YAMLNode? {
        keyPath.reduce(root) { node, key in
            guard let node else { return nil }
            guard node.kind == .sequence else { return node[key] }
            guard !key.isEmpty, key.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let index = Int(key),
                index < node.items.count
            else { return nil }
            return node.items[index]
        }
    }

    /// The position of the value at a key path, or of its nearest present ancestor.
    public func location(of keyPath: [String]) -> SourceLocation {
        var path = keyPath
        while true {
            if let node = node(at: path) {
                return SourceLocation(path: self.path, line: node.line, column: node.column)
            }
            if path.isEmpty { return SourceLocation(path: self.path, line: 1, column: 1) }
            path.removeLast()
        }
    }

    /// The position of a key itself (rather than its value), or of its nearest present ancestor.
    public func keyLocation(of keyPath: [String]) -> SourceLocation {
        guard let last = keyPath.last, let mapping = node(at: Array(keyPath.dropLast())) else {
            return location(of: keyPath)
        }
        if let key = mapping.pairs.first(where: { $0.key.string == last })?.key {
            return SourceLocation(path: path, line: key.line, column: key.column)
        }
        return location(of: keyPath)
    }
}
