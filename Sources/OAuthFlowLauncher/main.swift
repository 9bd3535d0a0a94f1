// `oauthflow`: the command people and tools run. It answers the calls tools make all day straight from
// the session file, with nothing but the Swift standard library and the C library loaded:
//
//   oauthflow token print NAME [--account A] [--kind access]     a valid access token
//   oauthflow credential git get|store|erase                     git's helper, for a request the full
//                                                                command answered before (its memo)
//   oauthflow providers list [--json]                            what the full command printed, while
//                                                                nothing it read has changed (its memo)
//
// The first two answer only from a session whose origin the full command checked (SessionOriginMemo). Everything else,
// and each of these the moment anything is unusual (an expired token, a refresh record, a changed clients.yaml or
// descriptor, an unknown option), goes to the full command with the same arguments and the
// same standard input: the fast path never decides differently, it only decides sooner. The full command
// is `oauthflow-full` beside this file (installed so, this file being `oauthflow`), or, in a build
// directory, where this file is `oauthflow-launcher`, the `oauthflow` beside it.
import OAuthFlowFiles

let arguments = Array(CommandLine.arguments.dropFirst())
// Only the variables the directories are found from (the whole environment goes to the full command by `execv`).
let environment = StateFiles.processEnvironment(StateFiles.directoryVariables)
let sessionDirectory = StateFiles.sessionDirectory(environment: environment)

/// Writes all of `text` to standard output. A failure (standard output closed) exits 1 at once: the answer may be
/// half written, and handing over would write it again.
func writeOut(_ text: String) -> Bool {
    writeAll(Array(text.utf8)[...], to: 1)
}

/// Writes all of `bytes` to the descriptor `fd`, as ``writeOut(_:)`` does.
func writeAll(_ bytes: ArraySlice<UInt8>, to fd: Int32) -> Bool {
    var bytes = bytes
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            exit(1)
        }
        bytes = bytes.dropFirst(written)
    }
    return true
}

/// The session of `providerID` and `account` when its access token may leave: valid, and vouched for by the check
/// the full command made of its origin (``SessionOriginMemo``: the provider still names the authorization server that
/// issued it, and nothing the check read has changed since).
func vouchedSession(providerID: String, account: String) -> SessionPeek? {
    guard let session = SessionPeek.read(providerID: providerID, account: account, directory: sessionDirectory),
        let memo = SessionOriginMemo.read(sessionDirectory: sessionDirectory),
        memo.vouches(
            stem: StateFiles.sessionStem(providerID: providerID, account: account), authorizationServer: session.authorizationServer,
            clientID: session.clientID,
            required: SessionOriginMemo.userFiles(providerID: providerID, configHome: StateFiles.configHome(environment: environment)))
    else { return nil }
    return session
}

/// Whether `text` goes to standard output as it is: always to a pipe or a file; to a terminal only when it holds
/// nothing but printable ASCII and line ends (the full command escapes the rest for a terminal, so it answers then).
func printsAsIs(_ text: String) -> Bool {
    isatty(1) == 0 || text.utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }
}

/// `token print`'s own words: the provider and account, when they are all it was given (and `--kind access`).
func tokenPrintSession(_ words: ArraySlice<String>) -> (providerID: String, account: String)? {
    var name: String?
    var account = "default"
    var words = words
    while let word = words.popFirst() {
        var option = word
        var value: String?
        if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
            option = String(word[..<equals])
            value = String(word[word.index(after: equals)...])
        }
        switch option {
        case "--account", "--kind":
            guard let given = value ?? words.popFirst(), !given.hasPrefix("-") || value != nil else { return nil }
            if option == "--kind" {
                guard given == "access" else { return nil }
            } else {
                // The argument parser refuses `--account=` with no value: so does this, by handing it over.
                guard !given.isEmpty else { return nil }
                account = given
            }
        default:
            guard !word.hasPrefix("-"), name == nil else { return nil }
            name = word
        }
    }
    guard let name else { return nil }
    return (name, account)
}

/// git's request on standard input, read whole (at most 64 KiB and one byte more: the full command refuses more).
func readStandardInput() -> [UInt8] {
    var input: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while input.count <= GitCredentialLines.maximumSize {
        let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count < 0 {
            // What was read is not the whole request: answering it, or handing it over, could match another mapping.
            let reason = String(cString: strerror(errno))
            _ = "oauthflow: error: cannot read git's request: \(reason)\n".withCString { write(2, $0, strlen($0)) }
            exit(1)
        }
        if count == 0 { break }
        input.append(contentsOf: buffer[0..<count])
    }
    return input
}

/// Answers `credential git OPERATION` from the memo and the session file; false when the full command must.
func answerGit(_ operation: String, input: [UInt8]) -> Bool {
    guard ["get", "store", "erase"].contains(operation),
        let attributes = try? GitCredentialLines.parse(String(decoding: input, as: UTF8.self)),
        let entry = GitCredentialMemo.read(sessionDirectory: sessionDirectory)?
            .entry(for: attributes, clientsFile: StateFiles.clientsFile(environment: environment))
    else { return false }
    // No mapping for this remote: say nothing, so git asks its next helper.
    guard let providerID = entry.providerID else { return true }
    switch operation {
    case "get":
        // The session the full command answered with, checked against the mapping's variables: one signed in since
        // for another authorization server (another tenant of the provider) goes back to the full command.
        guard let session = vouchedSession(providerID: providerID, account: entry.account), session.authorizationServer == entry.authorizationServer,
            let answer = GitCredentialLines.answer(username: entry.username, password: session.accessToken, expiresAt: session.expiresAt),
            printsAsIs(answer)
        else { return false }
        return writeOut(answer)
    case "erase":
        // Under the session's lock: a refresh under way in another process finishes first, and is not written back.
        return SessionFiles.removeLocked(providerID: providerID, account: entry.account, directory: sessionDirectory) == nil
    default:
        return true  // `store`: the token already lives in the session.
    }
}

/// The full command, `oauthflow-full` in this executable's directory.
func fullCommand() -> String? {
    guard let own = RawFile.ownExecutable(), let slash = own.lastIndex(of: "/") else { return nil }
    let directory = String(own[..<slash])
    if own[own.index(after: slash)...] != "oauthflow", !RawFile.exists(directory + "/oauthflow-full") {
        return directory + "/oauthflow"
    }
    return directory + "/oauthflow-full"
}

/// This executable's own file: on Linux through /proc (the path it was started by may be relative to another
/// directory, or gone), else, and elsewhere, by that path.
func statOwnExecutable(_ own: inout stat) -> Bool {
    #if os(Linux)
    if stat("/proc/self/exe", &own) == 0 { return true }
    #endif
    return stat(CommandLine.arguments[0], &own) == 0
}

/// Writes `message` to standard error and exits with `status`.
func fail(_ message: String, _ status: Int32) -> Never {
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

/// Makes `input` the standard input of the program this process is about to become: written whole, now, into one end
/// of a socket pair whose other end becomes descriptor 0. Nothing is left to write once `execv` replaces this process,
/// so no second process is needed (Swift marks `fork()` unavailable on Apple platforms), and no file ever holds the
/// request. A socket pair rather than a pipe: a pipe holds 64 KiB at most (on macOS 16 KiB when the system is short of
/// pipe memory), less than the 64 KiB and one byte the full command must see to refuse an oversize request, while a
/// socket's buffers can be asked for a megabyte. Should the system still buffer less, the hand-over fails with a
/// message rather than waiting for a reader that does not exist yet.
func feedStandardInput(_ input: [UInt8]) {
    func refuse(_ what: String) -> Never {
        fail("oauthflow: cannot hand git's request to the full command (\(what): \(String(cString: strerror(errno))))\n", 1)
    }
    var ends: [Int32] = [0, 0]
    #if canImport(Glibc)
    let stream = Int32(SOCK_STREAM.rawValue)
    #else
    let stream: Int32 = SOCK_STREAM
    #endif
    guard socketpair(AF_UNIX, stream, 0, &ends) == 0 else { refuse("socketpair") }
    var room: Int32 = 1 << 20
    _ = setsockopt(ends[1], SOL_SOCKET, SO_SNDBUF, &room, socklen_t(MemoryLayout<Int32>.size))
    _ = setsockopt(ends[0], SOL_SOCKET, SO_RCVBUF, &room, socklen_t(MemoryLayout<Int32>.size))
    guard fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK) == 0 else { refuse("fcntl") }
    var rest = input[...]
    while !rest.isEmpty {
        let written = rest.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { refuse("\(input.count) bytes not buffered") }
        rest = rest.dropFirst(written)
    }
    close(ends[1])
    guard dup2(ends[0], 0) == 0 else { refuse("dup2") }
    close(ends[0])
}

/// Runs the full command in this process's place, with `input` (already read) as its standard input.
func handOver(input: [UInt8]?) -> Never {
    guard let full = fullCommand() else { fail("oauthflow: cannot find its own executable to run oauthflow-full beside it\n", 127) }
    // Installed the wrong way round (this launcher as oauthflow-full too), the hand-over would run itself forever.
    var target = stat()
    var own = stat()
    if stat(full, &target) == 0, statOwnExecutable(&own),
        target.st_dev == own.st_dev, target.st_ino == own.st_ino
    {
        fail("oauthflow: \(full) is this launcher, not the full command: install the build's `oauthflow` there (README, \"The CLI\")\n", 126)
    }
    if let input { feedStandardInput(input) }
    var argv = CommandLine.arguments.map { strdup($0) }
    argv.append(nil)
    execv(full, argv)
    let reason = String(cString: strerror(errno))
    fail("oauthflow: cannot run \(full) (\(reason)); install it beside oauthflow (README, \"The CLI\")\n", errno == ENOENT ? 127 : 126)
}

/// Prints what the full command printed for the same `providers list` while nothing it read has changed
/// (``ProviderListMemo``); false when the full command must answer.
func answerProviderList() -> Bool {
    guard ProviderListMemo.remembers(arguments), let full = fullCommand().flatMap(RawFile.resolved),
        let memo = ProviderListMemo.read(sessionDirectory: sessionDirectory),
        memo.answers(
            arguments: arguments, terminals: [isatty(1) != 0, isatty(2) != 0], fullCommand: full,
            configHome: StateFiles.configHome(environment: environment))
    else { return false }
    // In the order the full command writes them: its warnings, then the listing.
    return writeAll(memo.errors, to: 2) && writeAll(memo.output, to: 1)
}

switch arguments.first {
case "providers":
    if answerProviderList() { exit(0) }
    handOver(input: nil)
case "token" where arguments.count >= 3 && arguments[1] == "print":
    if let (providerID, account) = tokenPrintSession(arguments[2...]),
        let session = vouchedSession(providerID: providerID, account: account),
        !session.accessToken.contains("\n"), printsAsIs(session.accessToken), writeOut(session.accessToken + "\n")
    {
        exit(0)
    }
    handOver(input: nil)
case "credential" where arguments.count == 3 && arguments[1] == "git":
    let input = readStandardInput()
    if answerGit(arguments[2], input: input) { exit(0) }
    handOver(input: input)
default:
    handOver(input: nil)
}
