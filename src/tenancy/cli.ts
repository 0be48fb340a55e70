// `gatehouse admin …`.
import { Command } from 'commander';

export function adminCommand(): Command {
  return new Command('admin').description('Administer accounts, facilities, applications and credentials.');
}
