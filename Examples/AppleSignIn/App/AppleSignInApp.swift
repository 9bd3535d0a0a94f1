// The example's SwiftUI views: the only lines of Examples/AppleSignIn no Linux build compiles. What they show and
// call is SignInModel (../Model), which the package's tests run on Linux.
#if canImport(SwiftUI)
import OAuthFlow
import OAuthFlowApple
import SwiftUI

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@main
struct AppleSignInApp: App {
    @State private var model: SignInModel = {
        let clients = (try? AppClients.settings(infoDictionary: Bundle.main.infoDictionary)) ?? [:]
        let store: any TokenStore = (try? KeychainTokenStore()) ?? InMemoryTokenStore()
        return SignInModel(oauth: OAuth(OAuth.Configuration(clients: clients, store: store))) { SystemWebAuthenticator() }
    }()

    var body: some Scene {
        WindowGroup { ContentView(model: model) }
    }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
struct ContentView: View {
    let model: SignInModel

    var body: some View {
        NavigationStack {
            switch model.phase {
            case .signedIn(let provider):
                TabView {
                    List {
                        Text(model.name ?? "Signed in to \(provider)")
                        Text(model.email ?? "")
                        ForEach(model.buttons, id: \.title) { button in
                            Button(button.title) { Task { await model.tap(button) } }
                        }
                        if let answer = model.answer { Text(answer).font(.footnote) }
                        Button("Sign out", role: .destructive) { Task { await model.signOut() } }
                    }
                    .tabItem { Label("Resources", systemImage: "list.bullet") }
                    ScrollView { Text(model.header ?? "not a JWT").monospaced() }.tabItem { Label("Header", systemImage: "doc") }
                    ScrollView { Text(model.payload ?? "not a JWT").monospaced() }.tabItem { Label("Payload", systemImage: "doc.text") }
                }
            default:
                List(model.providers, id: \.self) { provider in
                    Button("Sign in with \(provider)") { Task { await model.signIn(to: provider) } }
                }
                .overlay { if case .failed(let message) = model.phase { Text(message).foregroundStyle(.red).padding() } }
            }
        }
        .task { for provider in model.providers { await model.restore(provider) } }
    }
}
#endif
