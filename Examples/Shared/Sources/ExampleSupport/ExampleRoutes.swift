// What both examples' routes decide, apart from how their framework keeps a session and answers.
import Foundation
import Logging
import OAuthFlow
import OAuthFlowWeb

public enum ExampleRoutes {
    /// The home page: the signed-out page without a user, or when the stored session ended elsewhere (the provider's
    /// logout, on any instance sharing the store; `forget` then clears the app's session); 503 when the store cannot be read.
    public static func home(_ user: SignedInUser?, web: WebSignIn, hasAPI: Bool, logger: Logger, forget: () -> Void) async -> (
        page: String, status: Int
    ) {
        guard let user else { return (ExamplePages.signedOut(web), 200) }
        do {
            guard try await web.isSignedIn(user.session) else {
                forget()
                return (ExamplePages.signedOut(web, note: "Your session has ended."), 200)
            }
        } catch {
            logger.error("the session store cannot be read", metadata: ["reason": "\(error)"])
            return (ExamplePages.unavailable, 503)
        }
        return (ExamplePages.signedIn(user, web: web, hasAPI: hasAPI), 200)
    }

    /// The signed-in user's access token, refreshed first when it has expired; nil (and `forget` called to clear the
    /// app's session) once the stored session has ended.
    public static func accessToken(_ user: SignedInUser, web: WebSignIn, logger: Logger, forget: () -> Void) async -> Secret? {
        do {
            return try await web.accessToken(for: user.session)
        } catch {
            logger.info("the stored session has ended", metadata: ["reason": "\(error)"])
            forget()
            return nil
        }
    }

    /// The page of `POST /resources/:index`: resource `index` of the user's, called with their access token; nil when
    /// there is no such resource or no token (the app then sends the browser home).
    public static func resource(_ index: Int?, of user: SignedInUser, web: WebSignIn, logger: Logger, forget: () -> Void) async -> String? {
        guard let index, user.resources.indices.contains(index),
            let token = await accessToken(user, web: web, logger: logger, forget: forget)
        else { return nil }
        let resource = user.resources[index]
        return ExamplePages.answer(resource.title, id: "resource", await ExamplePages.call(resource.url, with: token))
    }

    /// The page of `POST /api-call`: the app's own API called with the user's access token; nil without a token.
    public static func apiCall(_ url: URL, for user: SignedInUser, web: WebSignIn, logger: Logger, forget: () -> Void) async -> String? {
        guard let token = await accessToken(user, web: web, logger: logger, forget: forget) else { return nil }
        return ExamplePages.answer("GET /api/me", id: "api-answer", await ExamplePages.call(url, with: token))
    }
}

/// What the app's own API (`GET /api/me`) answers: who the access token speaks for, as the middleware checked it.
public struct Me: Codable, Sendable {
    public var provider: String
    public var subject: String?
    public var username: String?
    public var clientID: String?
    public var scopes: [String]
    public var checkedBy: String

    public init(_ principal: ProtectedResource.Principal) {
        provider = principal.providerID
        subject = principal.subject
        username = principal.claims["username"]?.stringValue
        clientID = principal.clientID
        scopes = principal.scopes
        checkedBy = principal.source.rawValue
    }
}
