import Testing
import OAuthFlowVapor
