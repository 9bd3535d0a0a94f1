#if Vapor
import Foundation
import OAuthFlowWeb
import Vapor

/// What a host does with a finished sign-in: log the user in to its session, set its cookie, issue a JWT…
/// and answer, usually with a redirect to `result.returnTo`. The pending cookie's deletion is added to
/// whatever response it returns.
public typealias SignInHandler = @Sendable (WebSignInResult, Request) async throws -> Response
#endif
