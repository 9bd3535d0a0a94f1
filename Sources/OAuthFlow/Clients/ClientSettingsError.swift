import Foundation

/// Why a client's settings could not be resolved: nothing names a client id, a named secret is
/// missing, or the clients file cannot be read.
///
/// Each message says what is wrong and where, in terms of the environment and the clients file;
/// it names no command-line flag, so any host can add its own advice.
public struct ClientSettingsError: MessageError, Hashable {
    public typealias Code = ErrorCode<ClientSettingsError>

    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The provider concerned.
    public let providerID: String?

    init(_ code: Code, _ message: String, provider: String? = nil) {
        self.code = code
        self.message = message
        self.providerID = provider
    }
}

extension ErrorCode where Domain == ClientSettingsError {
    /// No client id was given, and neither the environment nor the clients file names one.
    public static let missingClientID = Self("missing_client_id")
    /// The environment variable named for the client secret is unset or empty.
    public static let missingSecret = Self("missing_secret")
    /// The file named by `client_secret_file` cannot be read.
    public static let unreadableSecretFile = Self("unreadable_secret_file")
    /// The clients file exists but cannot be read (a directory, a pipe, too large, no permission).
    public static let unreadableClientsFile = Self("unreadable_clients_file")
    /// The clients file is not valid YAML, has an unknown key, or a key of the wrong shape.
    public static let invalidClientsFile = Self("invalid_clients_file")
    /// The clients file holds a secret in clear (`client_secret:`); secrets are given only by reference.
    public static let literalSecret = Self("literal_secret")
}

extension ClientSettingsError: CodedError {}
