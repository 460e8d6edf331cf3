# plumb as a Terraform / OpenTofu provider (docs/terraform.md). The instance URL comes from the
# variable `url` (TF_VAR_url), the access token from the environment variable PLUMB_TOKEN; it is
# never in this configuration nor in Terraform's state.
terraform {
  required_providers {
    plumb = {
      source = "plumb/plumb"
    }
  }
}

variable "url" {
  type        = string
  description = "Base URL of the instance, e.g. http://127.0.0.1:8929 for `plumb emulator --port 8929`."
}

provider "plumb" {
  url       = var.url
  token_env = "PLUMB_TOKEN"
}

# Only the settings written here are managed; plumb checks their dependencies offline
# (two_factor_grace_period is required when require_two_factor_authentication is true).
resource "plumb_application_settings" "this" {
  signup_enabled                    = false
  require_two_factor_authentication = true
  two_factor_grace_period           = 48
  deletion_adjourned_period         = 14
  restricted_visibility_levels      = ["public"]
}

# The token's secret goes to the sink file (mode 0600), never to Terraform's state. plumb rotates
# it 14 days before it expires: the new secret is delivered before the old token stops working.
resource "plumb_group_access_token" "ci" {
  group        = "platform"
  name         = "terraform-ci"
  description  = "Deploys from CI"
  scopes       = ["read_api"]
  access_level = "developer"
  rotation = {
    lifetime_days      = 90
    rotate_before_days = 14
  }
  sink = {
    file = "secrets/terraform-ci.token"
  }
}
