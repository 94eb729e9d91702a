/** The owner of what a command creates (an API key, an audit job): a named user, else the first administrator. */
import type { Accounts } from '../accounts/index.ts';
import { fail } from './context.ts';

export async function ownerOf(accounts: Accounts, email: string | undefined): Promise<number> {
  if (email) {
    const user = await accounts.findUser(email);
    if (!user) fail(`no user ${email} (create one with netrep users create)`);
    return user.id;
  }
  const admin = (await accounts.listUsers()).find((u) => u.role === 'admin');
  if (!admin) fail('no administrator yet: start the server once, or run netrep users create --role admin');
  return admin.id;
}
