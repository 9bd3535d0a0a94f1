#if NIO
import Foundation
import OAuthFlow

/// Registered clients in files, one per authorization server, kept as sessions are: the directory 0700, each file
/// 0600 and written atomically, a link or a file with loose permissions refused. A registered client may hold a
/// secret: keep the directory as private as the sessions'.
///
/// The `oauthflow mcp` commands keep theirs in `$XDG_STATE_HOME/oauthflow/mcp-clients`.
public struct FileClientRegistrationStore: ClientRegistrationStore {
    /// Where the files are, created 0700 when first needed.
    public let directory: URL
    private let files: FileTokenStore

    /// - Parameter directory: Where the files live; not a session store's own directory.
    public init(directory: URL) {
        self.directory = directory
        self.files = FileTokenStore(directory: directory)
    }

    /// The file the client registered at `issuer` is kept in.
    public func path(for issuer: URL) -> String {
        files.path(for: SessionKey(providerID: "registered-client", account: issuer.absoluteString))
    }

    public func client(for issuer: URL) async throws -> RegisteredClient? {
        let path = path(for: issuer)
        guard let data = try files.readPrivateFile(path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let client = try? decoder.decode(RegisteredClient.self, from: data), client.issuer == issuer else {
            throw TokenStoreError(.corrupt, "\(path) is not a registered client of \(issuer.absoluteString); it was left in place", path: path)
        }
        return client
    }

    public func save(_ client: RegisteredClient) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        try files.writePrivateFile(try encoder.encode(client), to: path(for: client.issuer))
    }

    public func remove(for issuer: URL) async throws {
        let path = path(for: issuer)
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }
}
#endif
