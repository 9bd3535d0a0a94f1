import Foundation

/// Why a provider could not be loaded, found or resolved.
///
/// One struct with an extensible ``Code``, so that new cases do not break callers
/// who switch on the code.
public struct ProviderError: MessageError, Hashable {
    /// The kind of failure.
    public typealias Code = ErrorCode<ProviderError>

    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The provider concerned, when known.
    public let providerID: String?
    /// The variable concerned, for variable errors.
    public let variable: String?
    /// Positioned problems, for ``Code/invalidDescriptor``.
    package let problems: [DescriptorProblem]
    /// The descriptor setting a refusal is about, as the key path to its value (`["security", "pkce_method"]`,
    /// `["grant_types", "1"]`), so that lint can point at it; nil when the error is about no one setting.
    package let keyPath: [String]?

    init(
        _ code: Code, _ message: String, provider: String? = nil, variable: String? = nil, problems: [DescriptorProblem] = [],
        keyPath: [String]? = nil
    ) {
        self.code = code
        self.message = message
        self.providerID = provider
        self.variable = variable
        self.problems = problems
        self.keyPath = keyPath
    }

    /// The message, then one indented line per problem; each line has its control characters escaped.
    public var description: String {
        ([TerminalText.escaped(message)] + problems.map { "  \($0)" }).joined(separator: "\n")
    }
}

extension ErrorCode where Domain == ProviderError {
    /// No provider has the requested id.
    public static let unknownProvider = Self("unknown_provider")
    /// One or more descriptor files could not be read; ``ProviderError/description`` lists their positioned problems,
    /// one line each.
    public static let invalidDescriptor = Self("invalid_descriptor")
    /// Two files in one directory declare the same id.
    public static let duplicateID = Self("duplicate_id")
    /// A variable the descriptor requires was not given and has no default.
    public static let missingVariable = Self("missing_variable")
    /// A variable was given that the descriptor does not declare.
    public static let unknownVariable = Self("unknown_variable")
    /// A variable's value breaks its pattern, enum, or the URL it is placed in.
    public static let invalidVariable = Self("invalid_variable")
    /// A URL could not be built from the descriptor.
    public static let invalidURL = Self("invalid_url")
    /// Discovery is off and the descriptor gives no token endpoint (an issuer alone names none).
    public static let missingEndpoint = Self("missing_endpoint")
    /// The resource file named by the descriptor could not be read.
    public static let invalidResources = Self("invalid_resources")
    /// The descriptor asks for something the engine will not run (a response type other than `code`,
    /// the `plain` PKCE method, an unknown grant or ID token algorithm).
    public static let unsupportedPolicy = Self("unsupported_policy")
    /// The descriptor claims a security profile (`security.profile`) and contradicts it: PAR off, a weak algorithm,
    /// a client secret, no sender-constrained tokens, endpoints not from the issuer's metadata.
    public static let securityProfile = Self("security_profile")
}

extension ProviderError: CodedError {}
