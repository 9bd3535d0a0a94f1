#if Vapor
import Foundation
import OAuthFlow
import OAuthFlowWeb
import Vapor

/// Clears the host's own session (its cookie, its user) before the browser leaves for the provider's logout.
public typealias SignOutHandler = @Sendable (Request) async throws -> Void
#endif
