-- Issue 26: a facility's postal address has two street lines, addressLine1 and addressLine2, as PMS
-- clients read them (SPEC §1). The first line stays in address_line: it is addressLine1, and
-- addressLine (the alias shipped before) is read from the same column, so there is one source of
-- truth and no copy to keep in step. The column is kept rather than renamed so that an instance
-- still running the previous version during a rolling restart reads and writes it unchanged.
alter table facilities add column address_line2 text check (char_length(address_line2) <= 200);
