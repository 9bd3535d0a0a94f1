import Foundation

/// Whole-string matching for descriptor patterns, in time linear in the input.
///
/// Descriptor patterns come from files anyone may write, and the values they check
/// come from command lines and host code. A backtracking engine (ICU, which
/// `NSRegularExpression` uses) takes exponential time on patterns such as
/// `^(a+)+$`; this one compiles the pattern to a Thompson NFA and runs every
/// alternative in lockstep, so a match costs at most (input length × program size)
/// steps, whatever the pattern.
///
/// The syntax is the common core of ICU, ECMAScript and JSON Schema patterns:
/// literals, `.`, character classes (`[a-z0-9_-]`, `[^/]`), the escapes `\d \w \s`
/// (and `\D \W \S`) and escaped punctuation, groups `( )` and `(?: )`, alternation
/// `|`, the quantifiers `* + ? {n} {n,} {n,m}` (lazy forms accepted, they match
/// the same strings), and the anchors `^` and `$`. Backreferences, lookaround and
/// word boundaries are refused: they are what makes matching slow.
enum Pattern {
    /// Compiled programs by pattern text; descriptors repeat the same few patterns.
    private static let cache = ProgramCache()

    /// The most a `{n,m}` bound may say; counted repetition is compiled by copying.
    static let maximumRepeat = 1_000
    /// The largest compiled program accepted.
    static let maximumProgramSize = 20_000

    /// Whether `value` matches `pattern` from its first character to its last.
    ///
    /// An invalid pattern matches nothing, so a broken `pattern` rejects values
    /// rather than letting them through.
    static func matchesWhole(_ value: String, pattern: String) -> Bool {
        guard case let .success(program) = cache.program(for: pattern) else { return false }
        return program.matchesWhole(value)
    }

    /// Why `pattern` cannot be used, or nil when it can.
    static func problem(in pattern: String) -> String? {
        if case let .failure(error) = cache.program(for: pattern) { return error.reason }
        return nil
    }

    struct SyntaxError: Error {
        let reason: String
    }

    // MARK: - Syntax tree

    fileprivate indirect enum Node {
        case empty
        case set(ScalarSet)
        case start, end
        case sequence([Node])
        case alternation([Node])
        case repeated(Node, min: Int, max: Int?)
    }

    /// A set of Unicode scalars: ranges, possibly negated.
    fileprivate struct ScalarSet {
        var ranges: [ClosedRange<UInt32>]
        var negated = false

        func contains(_ scalar: UInt32) -> Bool {
            var found = false
            for range in ranges where range.contains(scalar) {
                found = true
                break
            }
            return found != negated
        }

        static func single(_ scalar: Unicode.Scalar) -> ScalarSet { ScalarSet(ranges: [scalar.value...scalar.value]) }
        static let digit = ScalarSet(ranges: [0x30...0x39])
        static let word = ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
        static let space = ScalarSet(ranges: [0x09...0x0D, 0x20...0x20, 0x85...0x85, 0xA0...0xA0, 0x2028...0x2029])
        static let anyButNewline = ScalarSet(ranges: [0x0A...0x0A, 0x0D...0x0D], negated: true)
    }

    // MARK: - Parser

    fileprivate struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ pattern: String) {
            scalars = Array(pattern.unicodeScalars)
        }

        var atEnd: Bool { index >= scalars.count }
        var current: Unicode.Scalar? { atEnd ? nil : scalars[index] }

        mutating func parse() throws -> Node {
            let node = try alternation()
            guard atEnd else { throw SyntaxError(reason: "unbalanced `)` at position \(index + 1)") }
            return node
        }

        mutating func alternation() throws -> Node {
            var branches = [try sequence()]
            while current == "|" {
                index += 1
                branches.append(try sequence())
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func sequence() throws -> Node {
            var items: [Node] = []
            while let scalar = current, scalar != "|", scalar != ")" {
                items.append(try quantified(try atom()))
            }
            return items.isEmpty ? .empty : items.count == 1 ? items[0] : .sequence(items)
        }

        mutating func quantified(_ atom: Node) throws -> Node {
            guard let scalar = current else { return atom }
            let bounds: (Int, Int?)
            switch scalar {
            case "*": bounds = (0, nil); index += 1
            case "+": bounds = (1, nil); index += 1
            case "?": bounds = (0, 1); index += 1
            case "{":
                guard let counted = try countedBounds() else { return atom }
                bounds = counted
            default: return atom
            }
            switch current {
            case "?": index += 1  // lazy: the same strings match as a whole
            case "+": throw SyntaxError(reason: "possessive quantifiers (`*+`, `++`) are not supported")
            case "*", "{": throw SyntaxError(reason: "a quantifier follows another at position \(index + 1)")
            default: break
            }
            if case .start = atom { throw SyntaxError(reason: "`^` cannot be repeated") }
            if case .end = atom { throw SyntaxError(reason: "`$` cannot be repeated") }
            return .repeated(atom, min: bounds.0, max: bounds.1)
        }

        /// `{n}`, `{n,}` or `{n,m}`; nil (and nothing consumed) when the brace is a literal.
        mutating func countedBounds() throws -> (Int, Int?)? {
            let start = index
            index += 1
            func number() -> Int? {
                var digits = ""
                while let scalar = current, ("0"..."9").contains(scalar) {
                    digits.unicodeScalars.append(scalar)
                    index += 1
                }
                return digits.isEmpty ? nil : Int(digits.prefix(9))
            }
            guard let low = number() else { index = start; return nil }
            var high: Int? = low
            if current == "," {
                index += 1
                high = number()
            }
            guard current == "}" else { index = start; return nil }
            index += 1
            if let high, high < low { throw SyntaxError(reason: "`{\(low),\(high)}` has its bounds the wrong way round") }
            guard max(low, high ?? 0) <= maximumRepeat else {
                throw SyntaxError(reason: "a repetition count above \(maximumRepeat) is not supported")
            }
            return (low, high)
        }

        mutating func atom() throws -> Node {
            guard let scalar = current else { throw SyntaxError(reason: "the pattern ends too early") }
            index += 1
            switch scalar {
            case "(":
                if current == "?" {
                    guard index + 1 < scalars.count, scalars[index + 1] == ":" else {
                        throw SyntaxError(reason: "lookaround and named or flagged groups (`(?…`) are not supported; use `(?:…)` or `(…)`")
                    }
                    index += 2
                }
                let inner = try alternation()
                guard current == ")" else { throw SyntaxError(reason: "a `(` is not closed") }
                index += 1
                return inner
            case ")": throw SyntaxError(reason: "unbalanced `)` at position \(index)")
            case "[": return .set(try characterClass())
            case ".": return .set(.anyButNewline)
            case "^": return .start
            case "$": return .end
            case "\\": return .set(try escape(inClass: false))
            case "*", "+", "?": throw SyntaxError(reason: "`\(scalar)` at position \(index) has nothing to repeat")
            default: return .set(.single(scalar))
            }
        }

        mutating func escape(inClass: Bool) throws -> ScalarSet {
            guard let scalar = current else { throw SyntaxError(reason: "the pattern ends with a lone `\\`") }
            index += 1
            switch scalar {
            case "d": return .digit
            case "w": return .word
            case "s": return .space
            case "D": return ScalarSet(ranges: ScalarSet.digit.ranges, negated: true)
            case "W": return ScalarSet(ranges: ScalarSet.word.ranges, negated: true)
            case "S": return ScalarSet(ranges: ScalarSet.space.ranges, negated: true)
            case "n": return .single("\n")
            case "t": return .single("\t")
            case "r": return .single("\r")
            default:
                if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                    throw SyntaxError(reason: "the escape `\\\(scalar)` is not supported (backreferences, `\\b` and the like make matching slow)")
                }
                return .single(scalar)
            }
        }

        mutating func characterClass() throws -> ScalarSet {
            var set = ScalarSet(ranges: [])
            if current == "^" {
                set.negated = true
                index += 1
            }
            var first = true
            while true {
                guard let scalar = current else { throw SyntaxError(reason: "a `[` is not closed") }
                if scalar == "]" && !first { index += 1; return set }
                first = false
                index += 1
                let low: Unicode.Scalar
                if scalar == "\\" {
                    let escaped = try escape(inClass: true)
                    guard !escaped.negated, escaped.ranges.count == 1, escaped.ranges[0].count == 1,
                        let single = Unicode.Scalar(escaped.ranges[0].lowerBound)
                    else {
                        guard !escaped.negated else { throw SyntaxError(reason: "`\\D`, `\\W` and `\\S` are not supported inside `[…]`") }
                        set.ranges += escaped.ranges
                        continue
                    }
                    low = single
                } else if scalar == "[" && current == ":" {
                    throw SyntaxError(reason: "POSIX classes (`[:alpha:]`) are not supported; write the ranges out")
                } else {
                    low = scalar
                }
                if current == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    guard var high = current else { throw SyntaxError(reason: "a `[` is not closed") }
                    index += 1
                    if high == "\\" {
                        let escaped = try escape(inClass: true)
                        guard escaped.ranges.count == 1, escaped.ranges[0].count == 1, !escaped.negated,
                            let single = Unicode.Scalar(escaped.ranges[0].lowerBound)
                        else {
                            throw SyntaxError(reason: "a range in `[…]` must end with a single character")
                        }
                        high = single
                    }
                    guard low.value <= high.value else { throw SyntaxError(reason: "the range `\(low)-\(high)` is backwards") }
                    set.ranges.append(low.value...high.value)
                } else {
                    set.ranges.append(low.value...low.value)
                }
            }
        }
    }

    // MARK: - Program

    fileprivate enum Instruction {
        case scalar(ScalarSet)
        case split(Int, Int)
        case jump(Int)
        case assertStart, assertEnd
        case match
    }

    fileprivate struct Compiler {
        var program: [Instruction] = []

        mutating func emit(_ instruction: Instruction) throws -> Int {
            guard program.count < maximumProgramSize else {
                throw SyntaxError(reason: "the pattern is too large once its repetitions are counted out (over \(maximumProgramSize) steps)")
            }
            program.append(instruction)
            return program.count - 1
        }

        mutating func compile(_ node: Node) throws {
            switch node {
            case .empty: break
            case let .set(set): _ = try emit(.scalar(set))
            case .start: _ = try emit(.assertStart)
            case .end: _ = try emit(.assertEnd)
            case let .sequence(items): for item in items { try compile(item) }
            case let .alternation(branches):
                var jumps: [Int] = []
                for (offset, branch) in branches.enumerated() {
                    if offset < branches.count - 1 {
                        let split = try emit(.split(0, 0))
                        try compile(branch)
                        jumps.append(try emit(.jump(0)))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try compile(branch)
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case let .repeated(inner, minimum, maximum):
                for _ in 0..<minimum { try compile(inner) }
                if let maximum {
                    // Each optional copy may be skipped to the end.
                    var splits: [Int] = []
                    for _ in minimum..<maximum {
                        splits.append(try emit(.split(0, 0)))
                        try compile(inner)
                    }
                    for split in splits { program[split] = .split(split + 1, program.count) }
                } else {
                    let split = try emit(.split(0, 0))
                    try compile(inner)
                    _ = try emit(.jump(split))
                    program[split] = .split(split + 1, program.count)
                }
            }
        }
    }

    /// A compiled pattern.
    struct Program: Sendable {
        fileprivate let instructions: [Instruction]

        init(_ pattern: String) throws {
            var parser = Parser(pattern)
            var compiler = Compiler()
            try compiler.compile(try parser.parse())
            _ = try compiler.emit(.match)
            instructions = compiler.program
        }

        /// Whether the whole of `value` matches: over its UTF-8 bytes when it is ASCII (each byte is
        /// then a scalar), over its scalars otherwise.
        func matchesWhole(_ value: String) -> Bool {
            var value = value
            let ascii: Bool? = value.withUTF8 { bytes in
                UTF8Search.isASCII(bytes) ? run(bytes.lazy.map { UInt32($0) }) : nil
            }
            return ascii ?? run(value.unicodeScalars.map(\.value))
        }

        /// ``matchesWhole(_:)`` of UTF-8 text, read in place when it is ASCII.
        func matchesWhole(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            UTF8Search.isASCII(bytes) ? run(bytes.lazy.map { UInt32($0) }) : matchesWhole(String(decoding: bytes, as: UTF8.self))
        }

        /// Runs every thread in lockstep over the input (Thompson's construction). Each instruction
        /// enters a list at most once per step (`seen` holds the step it last entered), so the lists
        /// hold at most one entry per instruction and a closure pushes at most two per instruction
        /// it visits: every table lives in one scratch allocation sized from the program.
        private func run<Input: Collection<UInt32>>(_ input: Input) -> Bool {
            let size = instructions.count
            let length = input.count
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: 5 * size + 1) { scratch in
                guard let base = scratch.baseAddress else { return false }
                let seen = base
                seen.initialize(repeating: -1, count: size)
                var current = base + size, next = base + 2 * size
                let stack = base + 3 * size
                var currentCount = 0, nextCount = 0
                return instructions.withUnsafeBufferPointer { program in
                    func addClosure(_ start: Int, at position: Int, into list: UnsafeMutablePointer<Int>, _ count: inout Int) {
                        var depth = 1
                        stack[0] = start
                        while depth > 0 {
                            depth -= 1
                            let pc = stack[depth]
                            guard seen[pc] != position else { continue }
                            seen[pc] = position
                            switch program[pc] {
                            case let .jump(target):
                                stack[depth] = target
                                depth += 1
                            case let .split(first, second):
                                stack[depth] = second
                                stack[depth + 1] = first
                                depth += 2
                            case .assertStart:
                                if position == 0 {
                                    stack[depth] = pc + 1
                                    depth += 1
                                }
                            case .assertEnd:
                                if position == length {
                                    stack[depth] = pc + 1
                                    depth += 1
                                }
                            case .scalar, .match:
                                list[count] = pc
                                count += 1
                            }
                        }
                    }
                    addClosure(0, at: 0, into: current, &currentCount)
                    var position = 0
                    for value in input {
                        nextCount = 0
                        for entry in 0..<currentCount {
                            let pc = current[entry]
                            if case let .scalar(set) = program[pc], set.contains(value) {
                                addClosure(pc + 1, at: position + 1, into: next, &nextCount)
                            }
                        }
                        if nextCount == 0 { return false }
                        swap(&current, &next)
                        currentCount = nextCount
                        position += 1
                    }
                    for entry in 0..<currentCount {
                        if case .match = program[current[entry]] { return true }
                    }
                    return false
                }
            }
        }
    }
}

/// A thread-safe cache of compiled patterns.
private final class ProgramCache: @unchecked Sendable {
    private let lock = NSLock()
    private var compiled: [String: Result<Pattern.Program, Pattern.SyntaxError>] = [:]

    func program(for pattern: String) -> Result<Pattern.Program, Pattern.SyntaxError> {
        lock.lock()
        defer { lock.unlock() }
        if let known = compiled[pattern] { return known }
        let result: Result<Pattern.Program, Pattern.SyntaxError>
        do {
            result = .success(try Pattern.Program(pattern))
        } catch let error as Pattern.SyntaxError {
            result = .failure(error)
        } catch {
            result = .failure(Pattern.SyntaxError(reason: "\(error)"))
        }
        if compiled.count < 1_024 { compiled[pattern] = result }
        return result
    }
}
