#if NIO
import Foundation
import OAuthFlow

/// MCP authorization (2026-07-28), "Authorization Response Validation": RFC 9207 §2.4 applied before the code goes to any
/// token endpoint, by the table the spec gives, and nothing an unauthenticated response says shown.
///
/// The engine's callback check (`AuthorizationCallback.validate`) does the comparing: the issuer recorded beside the PKCE
/// verifier (the validated metadata's, exactly as written), compared by simple string comparison whether or not the
/// metadata says `authorization_response_iss_parameter_supported`; a response without `iss` refused when it says `true`.
/// The engine reports an error redirect without `iss` from such a server as the server's error, marked unauthenticated;
/// the MCP table rejects it instead, and on a mismatch neither `error`, `error_description` nor `error_uri` is acted on or
/// shown: ``issuerRefusal(_:provider:)`` turns both into a sentence of its own.
extension MCPAuthorization {
    /// The refusal a sign-in's error becomes when the authorization response failed the RFC 9207 table; nil for any other.
    ///
    /// - An error redirect without `iss` from a server whose metadata says it sends one (the engine's unauthenticated
    ///   error: no HTTP status, a hint, and the rule `required`): rejected, its `error` and description dropped.
    /// - A response whose `iss` is not the recorded issuer (`FlowError` `issuer_mismatch`, which names no `error`): the
    ///   same sentence, the `iss` it named escaped.
    static func issuerRefusal(_ error: any Error, provider: Provider) -> MCPAuthorizationError? {
        let issuer = provider.issuer?.absoluteString ?? provider.id
        if let serverError = error as? AuthorizationServerError, serverError.httpStatus == nil, serverError.hint != nil,
            provider.issuerParameterRule == .required
        {
            return MCPAuthorizationError(
                .issuerMismatch,
                "the authorization response carried no `iss`, which \(issuer) says it always sends (`authorization_response_iss_parameter_supported`): it was rejected unread, as MCP authorization requires (RFC 9207 §2.4); nothing was sent to the token endpoint"
            )
        }
        if let flowError = error as? FlowError, flowError.code == .issuerMismatch {
            return MCPAuthorizationError(
                .issuerMismatch,
                "the authorization response did not come from \(issuer) (its `iss` is missing or not that issuer, compared exactly): it was rejected unread, as MCP authorization requires (RFC 9207 §2.4); nothing was sent to the token endpoint"
            )
        }
        return nil
    }
}
#endif
