#if Vapor
import Foundation
import OAuthFlow
import OAuthFlowWeb
import Vapor

/// Reads the signed-in session's key from the host's own session (nil when nobody is signed in).
public typealias CurrentSession = @Sendable (Request) async throws -> SessionKey?
#endif
