# plumb as a Terraform / OpenTofu provider (docs/terraform.md): settings, a token, a file, Pages.
# Against `plumb emulator --seed examples/emulator-seed.yaml`, which has the project and Pages. The instance URL comes from the
# variable `url` (TF_VAR_url), the access token from the environment variable PLUMB_TOKEN; it is
# never in this configuration nor in Terraform's state.
terraform {
  required_providers {
    plumb = {
      source = "plumb.invalid/plumb/plumb"
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

# The token's secret goes to its sinks (a file with mode 0600, a CI/CD variable read back after
# each write), never to Terraform's state. plumb rotates it 14 days before it expires: the new
# secret is delivered before the old token stops working.
resource "plumb_group_access_token" "ci" {
  group        = "platform"
  name         = "terraform-ci"
  description  = "Deploys from CI"
  scopes       = ["read_api"]
  access_level = "developer"
  rotation {
    lifetime_days      = 90
    rotate_before_days = 14
  }
  sinks {
    file = "secrets/terraform-ci.token"
  }
  sinks {
    ci_variable {
      project = "platform/infra/instance-config"
      key     = "TERRAFORM_CI_TOKEN"
    }
  }
}

# A file in a repository: one commit when it differs. plumb compares SHA-256 digests (one HEAD, no
# download) and updates with the last commit id Terraform's plan saw: a push in between is refused,
# never overwritten. Destroying the resource deletes the file (one commit).
resource "plumb_repository_file" "codeowners" {
  project   = "platform/infra/instance-config"
  file_path = "CODEOWNERS"
  content   = "* @platform/infra\n"
  commit_messages {
    create = "chore: add {path} (managed by terraform and plumb)"
    update = "chore: restore {path} (managed by terraform and plumb)"
  }
}

# A project's Pages settings. Destroying this resource stops managing them and leaves the site
# published; unpublishing is `published = false` together with `allow_unpublish = true`.
resource "plumb_project_pages" "handbook" {
  project                     = "platform/handbook"
  pages_primary_domain        = "docs.example.test"
  pages_https_only            = false
  pages_unique_domain_enabled = false
  published                   = true
}
