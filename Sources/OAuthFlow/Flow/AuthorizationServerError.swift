import Foundation

/// An OAuth error returned by the authorization server (RFC 6749 §4.1.2.1, §5.2).
public struct AuthorizationServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `error` code, such as `access_denied` or `invalid_grant`.
    public let error: String
    public let errorDescription: String?
    public let errorURI: String?
    /// The HTTP status, for errors from the token endpoint.
    public let httpStatus: Int?
    /// What OAuthFlow suspects, when the error is one a descriptor setting usually causes.
    public let hint: String?
    /// With `insufficient_user_authentication` (RFC 9470 §3): how recent the user's authentication must be (`max_age`),
    /// when the server says; a sign-in asking it (``ClientConfiguration/maximumAuthenticationAge``) meets it.
    public var maximumAuthenticationAge: Int? = nil
    /// With `insufficient_user_authentication` (RFC 9470 §3): the authentication context classes that would do
    /// (`acr_values`), when the server says; a sign-in asking them (``ClientConfiguration/acrValues``) meets it.
    public var acrValues: [String]? = nil

    /// Whether the server refused the client itself (`invalid_client` or `unauthorized_client`, RFC 6749 §5.2): its
    /// authentication, or a client it does not know (a forgotten registration).
    public var refusesClient: Bool { error == "invalid_client" || error == "unauthorized_client" }

    public init(error: String, errorDescription: String? = nil, errorURI: String? = nil, httpStatus: Int? = nil, hint: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
        self.httpStatus = httpStatus
        self.hint = hint
    }

    /// The same error with a hint attached.
    func hinted(_ hint: String) -> AuthorizationServerError {
        var hinted = AuthorizationServerError(
            error: error, errorDescription: errorDescription, errorURI: errorURI, httpStatus: httpStatus, hint: hint)
        hinted.maximumAuthenticationAge = maximumAuthenticationAge
        hinted.acrValues = acrValues
        return hinted
    }

    public var description: String {
        var text = "the authorization server returned `\(error)`"
        if let errorDescription { text += ": \(errorDescription)" }
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if let errorURI { text += " — see \(errorURI)" }
        if let hint { text += "; \(hint)" }
        return text
    }
}
