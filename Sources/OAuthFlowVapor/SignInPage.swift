#if Vapor
import Foundation
import OAuthFlowWeb
import Vapor

/// A sign-in page of the host's own, served at `GET {basePath}` instead of `WebSignIn.signInPage(returnTo:)`.
public typealias SignInPage = @Sendable (Request) async throws -> Response
#endif
