#if CLI
import Foundation
import OAuthFlow
import OAuthFlowFiles

/// Keeps what a plain `providers list` wrote for the launcher (``ProviderListMemo``), so that the next one is printed
/// without starting this command, unless a file it read changed while it ran or too recently to be told apart.
struct ProviderListRecord {
    private let arguments: [String]
    private let directories: [String]
    private let before: ProviderListMemo.Fingerprint
    private let environment: [String: String]

    /// Takes the identity of the bundled and the user's descriptor directories and of everything in them, before the
    /// listing reads them; nil for arguments the launcher does not answer, or without the bundled descriptors (whose
    /// absence is logged, which the memo would not repeat).
    init?(arguments: [String], environment: [String: String] = CommandEnvironment.variables) {
        guard ProviderListMemo.remembers(arguments), let bundled = ProviderRegistry.bundledDirectory?.path else { return nil }
        let directories = [bundled, ProviderRegistry.userProvidersDirectory(environment: environment).path]
        guard let before = ProviderListMemo.fingerprint(of: directories) else { return nil }
        self.arguments = arguments
        self.directories = directories
        self.before = before
        self.environment = environment
    }

    /// Records `output` and `errors`, the bytes written to standard output and error. A cache: a failure to write it is
    /// ignored, and the next listing takes the full command again.
    func remember(output: [UInt8], errors: [UInt8]) {
        guard ProviderListMemo.fingerprint(of: directories) == before, let full = RawFile.ownExecutable(),
            let fullIdentity = GitCredentialMemo.identity(of: full)
        else { return }
        let memo = ProviderListMemo(
            arguments: arguments, terminals: [isatty(STDOUT_FILENO) != 0, isatty(STDERR_FILENO) != 0], fullCommand: full,
            fullCommandIdentity: fullIdentity, configHome: StateFiles.configHome(environment: environment), directories: directories,
            fingerprint: before, output: output[...], errors: errors[...])
        guard memo.isSettled(now: Int(Date().timeIntervalSince1970)) else { return }
        let directory = StateFiles.sessionDirectory(environment: environment)
        guard ProviderListMemo.read(sessionDirectory: directory) != memo else { return }
        try? FileTokenStore(directory: URL(fileURLWithPath: directory, isDirectory: true)).writePrivateFile(
            Data(memo.rendered()), named: ProviderListMemo.fileName)
    }
}
#endif
