import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a workload's platform-issued JWT comes from, for the JWT bearer grant (RFC 7523 §2.1) with no user: a file its
/// platform mounts and rotates (a Kubernetes projected service-account token, a CI job's identity token written to
/// disk), or a callback of the host's.
///
/// It is read again each time a token is asked for, and presented only to the authorization server of the
/// ``ClientSettings`` that hold it (``ClientSettings/authorizationServer``).
public struct AssertionSource: Sendable, CustomStringConvertible {
    /// The largest assertion read: 16 KiB, several times a Kubernetes service-account token.
    public static let maximumSize = 16 * 1024

    private enum Origin: Sendable {
        case file(String, limit: Int)
        case callback(@Sendable () async throws -> Secret)
    }

    private let origin: Origin

    /// The assertion in the file at `path`, read afresh each time.
    ///
    /// - Parameters:
    ///   - path: The file. A symbolic link is refused: in a Kubernetes projected volume name `..data/<file>` in the
    ///     mount (`/var/run/secrets/tokens/..data/token`), which the kubelet replaces whole when the token rotates.
    ///   - maximumSize: The largest file read, in bytes.
    public static func file(_ path: String, maximumSize: Int = AssertionSource.maximumSize) -> AssertionSource {
        AssertionSource(origin: .file(path, limit: max(1, min(maximumSize, AssertionSource.maximumSize))))
    }

    /// The assertion the host's `read` returns, called each time a token is asked for (a CI job's identity token
    /// fetched from its runner, a workload identity agent).
    public static func callback(_ read: @escaping @Sendable () async throws -> Secret) -> AssertionSource {
        AssertionSource(origin: .callback(read))
    }

    /// Where it comes from, in words: the file's path, or "the host's callback".
    public var description: String {
        switch origin {
        case let .file(path, _): return "the file \(path)"
        case .callback: return "the host's callback"
        }
    }

    /// The file's path, for a file.
    public var path: String? {
        if case let .file(path, _) = origin { return path }
        return nil
    }

    /// The assertion, read now.
    ///
    /// - Throws: ``ClientSettingsError`` `unusable_assertion`, saying what is wrong with the file or the callback's answer
    ///   and never what it holds; what the callback throws.
    public func assertion() async throws -> Secret {
        switch origin {
        case let .file(path, limit):
            return try Self.checked(Self.read(path, limit: limit), from: description)
        case let .callback(read):
            return try Self.checked(try await read().value, from: description)
        }
    }

    /// The file's text: a regular file, not a link, private to its owner and group.
    private static func read(_ path: String, limit: Int) throws -> String {
        func refuse(_ why: String) -> ClientSettingsError {
            ClientSettingsError(.unusableAssertion, "the workload assertion file \(path) \(why); no token is asked for with it")
        }
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            throw refuse(
                "is a symbolic link, which is not followed (anyone who can change the link chooses the token sent); name the file itself. In a Kubernetes projected volume that is `..data/` and the file's name in the mount, which the kubelet replaces whole when the token rotates"
            )
        }
        let bytes: Data
        do {
            bytes = try SafeFile.read(path, limit: limit, followLinks: false) { info in
                // Others may neither read nor write it; the group may read it (a Kubernetes fsGroup), not write it.
                guard info.st_mode & 0o027 == 0 else {
                    let mode = String(info.st_mode & 0o777, radix: 8)
                    throw refuse(
                        "has permissions \(mode): \(info.st_mode & 0o007 != 0 ? "every user of the machine may read or change it" : "its group may change it"); make it 0400 or 0440 (chmod 0440 \(path); Kubernetes: `defaultMode: 0440` on the projected volume)"
                    )
                }
            }
        } catch let error as SafeFile.ReadError {
            throw refuse("cannot be read: \(error.reason)")
        }
        guard let text = String(data: bytes, encoding: .utf8) else { throw refuse("is not UTF-8 text") }
        return text
    }

    /// One compact JWT, without the white space around it.
    private static func checked(_ text: String, from origin: String) throws -> Secret {
        func refuse(_ why: String) -> ClientSettingsError {
            ClientSettingsError(.unusableAssertion, "the workload assertion from \(origin) \(why); no token is asked for with it")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw refuse("is empty") }
        guard trimmed.utf8.count <= maximumSize else { throw refuse("is larger than \(maximumSize / 1024) KiB") }
        guard (try? CompactJWS(trimmed)) != nil else { throw refuse("is not a JWT (three base64url parts, a JSON header and claims)") }
        return Secret(trimmed)
    }
}

extension ErrorCode where Domain == ClientSettingsError {
    /// A workload assertion (``AssertionSource``) cannot be used: its file is missing, a link, readable by others or too
    /// large, or what it holds is not a JWT.
    public static let unusableAssertion = Self("unusable_assertion")
}
