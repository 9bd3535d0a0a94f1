from django.contrib.auth import views as auth_views
from django.urls import include, path

from asserver.backends import patch_device_authorization

patch_device_authorization()

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
]
