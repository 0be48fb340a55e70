-- Issue 28: a facility's gate-code rules (SPEC §1 accessCodeRules): digits only or letters and digits,
-- a minimum and a maximum length, 1–16 (the widest code the service stores). Every facility, those that
-- exist included, starts with the default: digits, 4 to 10. Codes stored before are not re-checked:
-- the rules apply to codes sent after them. Three columns with their checks rather than one JSON
-- value, so that the database itself refuses a rule the service would not make.
alter table facilities
  add column access_code_characters text not null default 'digits'
    check (access_code_characters in ('digits', 'alphanumeric')),
  add column access_code_min_length smallint not null default 4
    check (access_code_min_length between 1 and 16),
  add column access_code_max_length smallint not null default 10
    check (access_code_max_length between 1 and 16),
  add constraint facilities_access_code_length_order check (access_code_min_length <= access_code_max_length);
